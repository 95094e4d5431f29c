import AuthHandlerCrypto
import AuthHandlerSystem
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// An accounts signing key kept in a PEM file that the daemon creates when it is missing (issue 25 §1
/// `signingKey`), as it does for `state.key` (docs/CONFIG.md "`stateKey` and `previousStateKeys`").
///
/// Creation never overwrites and is race-free between processes: the new key is written and fsync'd under a
/// temporary name opened with `O_CREAT | O_EXCL` (mode 0600), then `link(2)`ed into place, which fails with `EEXIST`
/// when another process got there first; that process's key is then read instead, so every creator ends up with the
/// one key on disk. A reader never sees a half-written file.
package enum SigningKeyFile {
    /// The longest file read: a P-256 PEM is about 240 bytes, an RSA-4096 one about 3.3 KB.
    static let maximumLength = 16 * 1024

    /// The key in the file at `path`, created with a fresh P-256 key when the file does not exist yet.
    package static func loadOrCreate(at path: String) throws(AccountSigningKeyError) -> AccountSigningKey {
        if let existing = try load(path) { return existing }
        return try keep(try AccountSigningKey.generate(), at: path)
    }

    /// Writes `key` to `path` unless a file is there already; answers the key on disk afterwards: `key`, or the one
    /// another process wrote first (which a creator that found no file and then lost the race gets).
    static func keep(_ key: AccountSigningKey, at path: String) throws(AccountSigningKeyError) -> AccountSigningKey {
        let pem = try key.pkcs8PEM()
        // Random, so that creators in one process (or a stale file from a crash) never share the temporary name.
        let suffix = (try? SecureRandom.base64URLString(byteCount: 8)) ?? "0"
        let temporary = path + ".tmp-\(getpid())-\(suffix)"
        let file: FileDescriptor
        do throws(SystemCallError) {
            file = try FileDescriptor(
                opening: temporary, flags: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode: 0o600)
        } catch {
            throw systemFailure("create", temporary, error)
        }
        defer { try? SystemCall.unlink(temporary) }
        do throws(SystemCallError) {
            try file.writeAll(Array(pem.reveal().utf8))
            try file.synchronize()
            try file.close()
        } catch {
            throw systemFailure("write", temporary, error)
        }
        do throws(SystemCallError) {
            try SystemCall.link(temporary, to: path)
        } catch {
            guard error.errorNumber == EEXIST, let winner = try load(path) else {
                throw systemFailure("link", path, error)
            }
            return winner
        }
        return key
    }

    /// The key in `path`; nil when the file does not exist.
    static func load(_ path: String) throws(AccountSigningKeyError) -> AccountSigningKey? {
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
            throw AccountSigningKeyError(
                "the signing key file \(path) is not a regular file owned by this user; give it to the daemon's user "
                    + "or remove it to have a new key generated (which ends every ID token it signed)")
        }
        // A key others could read may have been copied: using it silently would let them sign ID tokens.
        guard status.st_mode & 0o077 == 0 else {
            throw AccountSigningKeyError(
                "the signing key file \(path) is readable by other users, so the key may be known; rotate to a new key "
                    + "(docs/ACCOUNTS.md \"ID tokens and keys\"), or chmod 600 it if you are sure it was not read")
        }
        let bytes: [UInt8]
        do throws(SystemCallError) {
            bytes = try file.read(upTo: maximumLength + 1)
        } catch {
            throw systemFailure("read", path, error)
        }
        guard bytes.count <= maximumLength else {
            throw AccountSigningKeyError("the signing key file \(path) is longer than a PEM private key can be")
        }
        return try AccountSigningKey(pem: Secret(String(decoding: bytes, as: UTF8.self)), source: path)
    }

    /// `error` as a key failure; `step` names what was being done.
    private static func systemFailure(_ step: String, _ path: String, _ error: SystemCallError)
        -> AccountSigningKeyError
    {
        AccountSigningKeyError(
            "cannot keep the accounts signing key: \(step) \(path): \(error.reasonWithNumber); make its directory "
                + "writable by the daemon, or create the key yourself (docs/ACCOUNTS.md \"ID tokens and keys\")")
    }
}
