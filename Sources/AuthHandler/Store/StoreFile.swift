import Foundation

/// Creates the SQLite store's file before SQLite opens it, so it exists with mode 0600 from its first byte.
///
/// SQLite would create it with 0644 (`SQLITE_DEFAULT_FILE_PERMISSIONS`) minus the umask, and it gives the
/// `-wal` and `-shm` files the main file's mode (https://sqlite.org/tempfiles.html), so getting this one right
/// covers all three. Pending sign-ins hold PKCE verifiers and token secrets; results hold credentials.
enum StoreFile {
    /// Creates `path` (mode 0600) unless it exists, and narrows an existing file's group or other access to 0600.
    static func prepare(path: String) throws(StoreError) {
        let directory = parentDirectory(of: path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue
        else {
            throw StoreError(
                .unavailable,
                detail: "the directory \(directory) for store.path \(path) does not exist; create it "
                    + "(systemd: StateDirectory=) or set store.path to a file in an existing directory")
        }
        // O_CREAT with 0600: the umask can only remove bits, so the file never exists with wider access.
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw systemError("open", path: path) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw systemError("fstat", path: path) }
        if status.st_mode & 0o077 != 0 {
            guard fchmod(descriptor, 0o600) == 0 else { throw systemError("fchmod 0600", path: path) }
        }
    }

    /// The directory part of `path`; "." for a bare file name.
    static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }

    private static func systemError(_ call: String, path: String) -> StoreError {
        let code = errno
        return StoreError(.unavailable, detail: "\(call) \(path): \(String(cString: strerror(code))) (errno \(code))")
    }
}
