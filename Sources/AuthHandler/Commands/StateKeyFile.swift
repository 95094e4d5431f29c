import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The state key `serve` generates when the config names none (HTTP-API.md §2.3 `stateKey`): kept beside the SQLite
/// file as `state.key` (mode 0600, base64url), so a restart — `kill -9` included — still opens the cookies of sign-ins
/// that were in flight.
enum StateKeyFile {
    /// `state.key` in the directory of the SQLite file at `storePath`.
    static func path(besideStore storePath: String) -> String {
        StoreFile.parentDirectory(of: storePath) + "/state.key"
    }

    /// The key in the file at `path`, created with a fresh random key when it does not exist yet.
    ///
    /// Creation is race-free between instances sharing the directory: the key is written and fsync'd under a
    /// temporary name, then `link(2)`ed into place, which fails with `EEXIST` if another process got there first; its
    /// key is then read instead.
    static func loadOrCreate(at path: String) throws(ServiceStartError) -> [UInt8] {
        if let existing = try read(path) { return existing }
        let key: [UInt8]
        do {
            key = try SecureRandom.bytes(AES256GCM.keyLength)
        } catch {
            throw failure("cannot draw a state key: \(error)")
        }
        // Random, so that creators in one process (or a stale file from a crash) never share the temporary name.
        let temporary = path + ".tmp-\(getpid())-\(Base64.urlEncode((try? SecureRandom.bytes(8)) ?? []))"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw systemFailure("create", temporary) }
        defer { unlink(temporary) }
        let text = Array((Base64.urlEncode(key) + "\n").utf8)
        let written = text.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor)
        let closed = close(descriptor)
        guard written == text.count, synced == 0, closed == 0 else { throw systemFailure("write", temporary) }
        if link(temporary, path) != 0 {
            guard errno == EEXIST, let winner = try read(path) else { throw systemFailure("link", path) }
            return winner
        }
        return key
    }

    /// The key in `path`; nil when the file does not exist.
    private static func read(_ path: String) throws(ServiceStartError) -> [UInt8]? {
        // O_NONBLOCK: a FIFO planted in its place must fail the start, not hang it (open(2)).
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw systemFailure("open", path)
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw systemFailure("fstat", path) }
        guard status.st_mode & S_IFMT == S_IFREG, status.st_uid == geteuid() else {
            throw failure(
                "\(path) is not a regular file owned by this user; remove it to have a new state key generated, "
                    + "which ends the sign-ins in flight")
        }
        // A key others could read may have been copied: using it silently would let them forge pending sign-ins.
        guard status.st_mode & 0o077 == 0 else {
            throw failure(
                "\(path) is readable by other users, so the state key may be known; remove it to have a new one "
                    + "generated (which ends the sign-ins in flight), or chmod 600 it if you are sure it was not read")
        }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        guard count >= 0 else { throw systemFailure("read", path) }
        let text = String(decoding: buffer.prefix(count), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let key = StateKeyFormat.decode(Secret(text)) else {
            throw failure(
                "\(path) does not hold a state key (\(StateKeyFormat.expectation)); remove it to have a new one "
                    + "generated, which ends the sign-ins in flight")
        }
        return key
    }

    private static func failure(_ message: String) -> ServiceStartError {
        ServiceStartError(exitCode: .config, message: message)
    }

    private static func systemFailure(_ call: String, _ path: String) -> ServiceStartError {
        let code = errno
        return failure(
            "cannot keep the generated state key: \(call) \(path): \(String(cString: strerror(code))) (errno \(code)); "
                + "make the store's directory writable, or set stateKey in the config")
    }
}
