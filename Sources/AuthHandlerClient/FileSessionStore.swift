import Foundation

/// A ``SessionStore`` in a file only its owner can read, for platforms without a keychain (Linux): the session as
/// JSON, mode 0600, in a directory created 0700.
///
/// A save writes a new file (created 0600, so it is never readable by others, not even while being written) beside
/// the old one and renames it over it (rename(2) is atomic), so a crash leaves the old session or the new one, never
/// half of either. `load` refuses a file that others can read or write, or that another user owns: such a refresh
/// token may have been copied, so sign in again (after deleting the file).
public struct FileSessionStore: SessionStore {
    /// The session file.
    public let path: String

    public init(path: String) {
        self.path = path
    }

    public func load() throws(AuthHandlerClientError) -> AccountSession? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw Self.failure("open", path)
        }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw Self.failure("fstat", path) }
        guard status.st_uid == getuid(), status.st_mode & 0o077 == 0 else {
            throw .sessionStore(
                message: "\(path) is readable or writable by others (or owned by another user): its refresh token "
                    + "may have been copied; delete the file and sign in again")
        }
        let data: Data
        do {
            data = try handle.readToEnd() ?? Data()
        } catch {
            throw .sessionStore(message: "reading \(path) failed: \(error.localizedDescription)")
        }
        do {
            return try JSONDecoder().decode(AccountSession.self, from: data)
        } catch {
            throw .sessionStore(message: "\(path) does not hold a session; delete it and sign in again")
        }
    }

    public func save(_ session: AccountSession) throws(AuthHandlerClientError) {
        let file = URL(fileURLWithPath: path)
        let directory = file.deletingLastPathComponent()
        do {
            // The attributes apply to each directory this creates; an existing directory is left as it is.
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .sessionStore(message: "creating \(directory.path) failed: \(error.localizedDescription)")
        }
        let data: Data
        do {
            data = try JSONEncoder().encode(session)
        } catch {
            throw .sessionStore(message: "the session cannot be written as JSON: \(error)")
        }
        let temporary = directory.appendingPathComponent(".\(file.lastPathComponent).\(UUID().uuidString).tmp").path
        // O_EXCL: a file planted at the temporary name is never written through; 0600 from the first byte.
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw Self.failure("open", temporary) }
        var written = false
        defer { if !written { unlink(temporary) } }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        do {
            try handle.write(contentsOf: data)
            try handle.synchronize()
            try handle.close()
        } catch {
            throw .sessionStore(message: "writing \(temporary) failed: \(error.localizedDescription)")
        }
        guard rename(temporary, path) == 0 else { throw Self.failure("rename", path) }
        written = true
    }

    public func clear() throws(AuthHandlerClientError) {
        guard unlink(path) == 0 || errno == ENOENT else { throw Self.failure("unlink", path) }
    }

    /// The failure of system call `call` on `path`, with its errno.
    private static func failure(_ call: String, _ path: String) -> AuthHandlerClientError {
        let code = errno
        return .sessionStore(message: "\(call) \(path) failed: \(String(cString: strerror(code))) (errno \(code))")
    }
}
