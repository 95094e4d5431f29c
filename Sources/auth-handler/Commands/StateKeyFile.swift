import AuthHandlerCore
import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerProtocols
import AuthHandlerStore
import AuthHandlerSystem
import FakeIdP
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
        let file: FileDescriptor
        do throws(SystemCallError) {
            file = try FileDescriptor(
                opening: temporary, flags: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode: 0o600)
        } catch {
            throw systemFailure("create", temporary, error)
        }
        defer { try? SystemCall.unlink(temporary) }
        do throws(SystemCallError) {
            try file.writeAll(Array((Base64.urlEncode(key) + "\n").utf8))
            try file.synchronize()
            try file.close()
        } catch {
            throw systemFailure("write", temporary, error)
        }
        do throws(SystemCallError) {
            try SystemCall.link(temporary, to: path)
        } catch {
            guard error.errorNumber == EEXIST, let winner = try read(path) else {
                throw systemFailure("link", path, error)
            }
            return winner
        }
        return key
    }

    /// The key in `path`; nil when the file does not exist.
    private static func read(_ path: String) throws(ServiceStartError) -> [UInt8]? {
        // O_NONBLOCK: a FIFO planted in its place must fail the start, not hang it (open(2)).
        let file: FileDescriptor
        let status: stat
        do throws(SystemCallError) {
            file = try FileDescriptor(opening: path, flags: O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            status = try file.status()
        } catch {
            if error.call == "open", error.errorNumber == ENOENT { return nil }
            throw systemFailure(error.call, path, error)
        }
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
        let bytes: [UInt8]
        do throws(SystemCallError) {
            bytes = try file.read(upTo: 128)
        } catch {
            throw systemFailure("read", path, error)
        }
        let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
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

    /// `error` as a start failure; `step` names what was being done, as the message has always put it.
    private static func systemFailure(_ step: String, _ path: String, _ error: SystemCallError) -> ServiceStartError {
        failure(
            "cannot keep the generated state key: \(step) \(path): \(error.reasonWithNumber); "
                + "make the store's directory writable, or set stateKey in the config")
    }
}
