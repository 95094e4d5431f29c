import Foundation

/// The `--output` file: created with mode 0600, truncated when it exists, and never written through a symlink.
enum ResultFile {
    /// Why the file cannot be written, checked before the sign-in starts so that a bad path costs no sign-in.
    static func problem(at path: String) -> String? {
        var info = stat()
        if lstat(path, &info) == 0 {
            switch info.st_mode & S_IFMT {
            case S_IFLNK: return "--output \(path) is a symlink, which is refused; name the file itself"
            case S_IFREG: break
            default: return "--output \(path) is not a regular file; name a file to write the result to"
            }
            guard access(path, W_OK) == 0 else {
                return "--output \(path) is not writable by this user; fix its owner or mode, or name another file"
            }
            return nil
        }
        let failure = errno
        guard failure == ENOENT else { return "--output \(path): lstat failed: \(String(cString: strerror(failure)))" }
        let parent = (path as NSString).deletingLastPathComponent
        let directory = parent.isEmpty ? "." : parent
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue,
            access(directory, W_OK | X_OK) == 0
        else {
            return "--output \(path): the directory \(directory) does not exist or is not writable; create it first"
        }
        return nil
    }

    /// Writes `bytes` to `path`; returns a one-line problem on failure.
    static func save(_ bytes: [UInt8], to path: String) -> String? {
        // O_NOFOLLOW: a symlink planted at the path fails with ELOOP instead of redirecting the credential;
        // O_NONBLOCK: a FIFO without a reader fails with ENXIO instead of hanging (open(2)).
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return "cannot create --output \(path): open: \(lastError())" }
        var closed = false
        defer { if !closed { close(descriptor) } }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            return "--output \(path) is not a regular file; name a file to write the result to"
        }
        // An existing file keeps its mode on open; it is narrowed before anything is written into it.
        guard fchmod(descriptor, 0o600) == 0 else { return "cannot set mode 0600 on --output \(path): \(lastError())" }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return "cannot write --output \(path): \(lastError())"
            }
            offset += written
        }
        // A late write error (quota, network file systems) shows only at fsync or close.
        guard fsync(descriptor) == 0 else { return "cannot write --output \(path): fsync: \(lastError())" }
        closed = true
        guard close(descriptor) == 0 else { return "cannot write --output \(path): close: \(lastError())" }
        return nil
    }

    private static func lastError() -> String {
        let number = errno
        return "\(String(cString: strerror(number))) (errno \(number))"
    }
}
