import Foundation

/// A file that holds a secret, never written through a symlink: the `--output` result (``save(_:to:label:)``: created
/// with mode 0600, truncated when it exists) and `accounts export`'s users (``replace(_:at:label:)``: a new file of
/// mode 0600 renamed over the name). `label` names it in messages; `--output PATH` by default.
package enum ResultFile {
    /// Why the file cannot be written, checked before the sign-in starts so that a bad path costs no sign-in. With
    /// `replacing` (``replace(_:at:label:)``), what counts is that the directory takes a new file, whatever the old
    /// file's mode.
    package static func problem(at path: String, label: String? = nil, replacing: Bool = false) -> String? {
        let name = label ?? "--output \(path)"
        do throws(SystemCallError) {
            let info = try SystemCall.linkStatus(path)
            switch info.st_mode & S_IFMT {
            case S_IFLNK: return "\(name) is a symlink, which is refused; name the file itself"
            case S_IFREG: break
            default: return "\(name) is not a regular file; name a file to write to"
            }
            if !replacing {
                guard SystemCall.isAccessible(path, W_OK) else {
                    return "\(name) is not writable by this user; fix its owner or mode, or name another file"
                }
                return nil
            }
        } catch  where error.errorNumber != ENOENT {
            return "\(name): lstat failed: \(error.reason)"
        } catch {}
        let parent = (path as NSString).deletingLastPathComponent
        let directory = parent.isEmpty ? "." : parent
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue,
            SystemCall.isAccessible(directory, W_OK | X_OK)
        else {
            return "\(name): the directory \(directory) does not exist or is not writable; create it first"
        }
        return nil
    }

    /// Writes `bytes` to `path`; returns a one-line problem on failure.
    package static func save(_ bytes: [UInt8], to path: String) -> String? {
        let name = "--output \(path)"
        // O_NOFOLLOW: a symlink planted at the path fails with ELOOP instead of redirecting the credential;
        // O_NONBLOCK: a FIFO without a reader fails with ENXIO instead of hanging (open(2)).
        let file: FileDescriptor
        do throws(SystemCallError) {
            file = try FileDescriptor(
                opening: path, flags: O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode: 0o600)
        } catch {
            return "cannot create \(name): open: \(error.reasonWithNumber)"
        }
        guard let info = try? file.status(), info.st_mode & S_IFMT == S_IFREG else {
            return "\(name) is not a regular file; name a file to write to"
        }
        do throws(SystemCallError) {
            try fill(file, with: bytes)
        } catch {
            return "cannot write \(name): \(error.call): \(error.reasonWithNumber)"
        }
        return nil
    }

    /// Narrows `file` to mode 0600 before anything goes in (an existing file keeps its mode on open, and open(2)'s
    /// mode is narrowed by the umask), writes `bytes`, and closes it after fsync: a late write error (quota, network
    /// file systems) shows only at fsync or close.
    private static func fill(_ file: FileDescriptor, with bytes: [UInt8]) throws(SystemCallError) {
        try file.setMode(0o600)
        try file.writeAll(bytes)
        try file.synchronize()
        try file.close()
    }

    /// Writes `bytes` to a new file beside `path`, then gives it the name `path` (rename(2)): the name only ever shows
    /// a whole file, and a file that had it is replaced, never written into, so neither its mode nor its owner nor a
    /// descriptor someone holds open on it sees a byte. The new file has a random name (`.NAME.HEX`) and is opened
    /// with `O_CREAT | O_EXCL | O_NOFOLLOW` and mode 0600, so it is always a new file of this user's. Returns a
    /// one-line problem on failure, the new file removed; a process killed between the open and the rename leaves it
    /// (mode 0600) beside `path`, as HTTP-API.md §1.8 says.
    package static func replace(_ bytes: [UInt8], at path: String, label: String) -> String? {
        let parent = (path as NSString).deletingLastPathComponent
        let directory = parent.isEmpty ? "." : parent
        let temporary =
            "\(directory)/.\((path as NSString).lastPathComponent).\(String(UInt64.random(in: .min ... .max), radix: 16))"
        let file: FileDescriptor
        do throws(SystemCallError) {
            file = try FileDescriptor(
                opening: temporary, flags: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode: 0o600)
        } catch {
            return "cannot create a file beside \(label): open: \(error.reasonWithNumber)"
        }
        do throws(SystemCallError) {
            try fill(file, with: bytes)
            try SystemCall.rename(temporary, to: path)
            return nil
        } catch {
            try? SystemCall.unlink(temporary)
            return "cannot write \(label): \(error.call): \(error.reasonWithNumber)"
        }
    }
}
