import AuthHandlerSystem
import Foundation

/// Creates the SQLite store's file before SQLite opens it, so it exists with mode 0600 from its first byte.
///
/// SQLite would create it with 0644 (`SQLITE_DEFAULT_FILE_PERMISSIONS`) minus the umask, and it gives the
/// `-wal` and `-shm` files the main file's mode (https://sqlite.org/tempfiles.html), so getting this one right
/// covers all three. Pending sign-ins hold PKCE verifiers and token secrets; results hold credentials.
package enum StoreFile {
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
        do throws(SystemCallError) {
            let file = try FileDescriptor(opening: path, flags: O_RDWR | O_CREAT | O_CLOEXEC, mode: 0o600)
            if try file.status().st_mode & 0o077 != 0 {
                do throws(SystemCallError) {
                    try file.setMode(0o600)
                } catch {
                    throw SystemCallError(call: "fchmod 0600", subject: path, errorNumber: error.errorNumber)
                }
            }
        } catch {
            throw StoreError(.unavailable, detail: "\(error.call) \(path): \(error.reasonWithNumber)")
        }
    }

    /// The directory part of `path`; "." for a bare file name.
    package static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }
}
