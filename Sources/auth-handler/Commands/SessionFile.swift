import AuthHandlerClient
import AuthHandlerSystem
import Foundation

/// Where `login` keeps a session of a daemon's accounts and `token` and `logout` find it (HTTP-API.md §1.9): a file
/// of `AuthHandlerClient`'s `FileSessionStore` (mode 0600, written to a temporary file and renamed over, refused when
/// others can read it), `--session-file`, else one file per server under the XDG state directory. Never a symbolic
/// link: the refresh token is a credential, and a link planted at the path would send it elsewhere (the same rule as
/// `--output`'s, §1.4).
struct SessionFile: Sendable {
    typealias Failure = CommandFailure

    /// The session file.
    let path: String

    /// The store that reads and writes it.
    var store: FileSessionStore { FileSessionStore(path: path) }

    /// The lock file beside it: `token`, `login` and `logout` hold an exclusive flock(2) on it around their read,
    /// refresh and save, so two processes never both present one refresh token (reuse would revoke the session,
    /// docs/ACCOUNTS.md "Exactly one successor"). It is never removed: a process waiting on the removed file's lock
    /// would hold a lock nobody else takes.
    var lockPath: String { path + ".lock" }

    /// `--session-file` when given, else `DIRECTORY/auth-handler/sessions/NAME.json`, DIRECTORY being
    /// `$XDG_STATE_HOME` when it is an absolute path, else `$HOME/.local/state` (the XDG Base Directory
    /// Specification), NAME the server's scheme, host, port and path. Refused (exit 64) when the path is a
    /// symbolic link or not a regular file.
    static func resolve(option: String?, server: String, environment: [String: String]) throws(Failure) -> SessionFile {
        var path = option ?? ""
        if option == nil { path = try defaultPath(server: server, environment: environment) }
        let file = SessionFile(path: path)
        try file.checkNotALink(named: option != nil)
        return file
    }

    /// The default file of `server` (a URL `CommandFailure.checkServer` accepted).
    static func defaultPath(server: String, environment: [String: String]) throws(Failure) -> String {
        let base: String
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            base = state
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            base = home + "/.local/state"
        } else {
            throw Failure(
                .usage,
                "neither $XDG_STATE_HOME nor $HOME is an absolute path, so there is no default session file; "
                    + "name one with '--session-file FILE'")
        }
        return base + "/auth-handler/sessions/" + fileName(server: server) + ".json"
    }

    /// One name per server: `SCHEME_HOST_PORT` and the path, every byte outside `[A-Za-z0-9.-]` percent-encoded, so
    /// two servers never share a name and the name is never a path of its own.
    static func fileName(server: String) -> String {
        let components = URLComponents(string: server)
        let scheme = components?.scheme?.lowercased() ?? "https"
        let port = components?.port ?? (scheme == "http" ? 80 : 443)
        let host = (components?.host ?? server).lowercased()
        let path = components?.percentEncodedPath ?? ""
        let parts = [scheme, host, String(port)] + (path.isEmpty ? [] : [path])
        return parts.map { part in
            part.utf8.map { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"):
                    String(UnicodeScalar(byte))
                default:
                    "%" + Hex.lowercase([byte]).uppercased()
                }
            }.joined()
        }.joined(separator: "_")
    }

    /// Refuses a path that is a symbolic link or something other than a regular file (lstat(2)); nothing there is
    /// fine.
    func checkNotALink(named: Bool) throws(Failure) {
        let what = named ? "--session-file \(path)" : "the session file \(path)"
        var status = stat()
        do throws(SystemCallError) {
            try SystemCall.run("lstat", subject: path) { lstat(path, &status) }
        } catch  where error.errorNumber == ENOENT {
            return
        } catch {
            throw Failure(.usage, "\(what): \(error)")
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFLNK:
            throw Failure(
                .usage,
                "\(what) is a symbolic link, which is refused: a session is never kept through one; "
                    + "name the file itself with '--session-file'")
        default:
            throw Failure(.usage, "\(what) is not a regular file; name a file to keep the session in")
        }
    }

    /// Runs `body` holding the exclusive lock (flock(2) `LOCK_EX`, released when the descriptor closes, also when the
    /// process dies), creating the directory (0700, as the XDG specification asks of its state directories) and the
    /// lock file (0600, `O_NOFOLLOW`) first.
    func withLock<T>(_ body: () async throws(Failure) -> T) async throws(Failure) -> T {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            do {
                try FileManager.default.createDirectory(
                    atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw Failure(.config, "cannot create the directory of the session file, \(directory): \(error)")
            }
        }
        let lock: FileDescriptor
        let owner: uid_t
        do throws(SystemCallError) {
            lock = try FileDescriptor(
                opening: lockPath, flags: O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, mode: 0o600)
            owner = try lock.status().st_uid
        } catch {
            throw Failure(.config, "cannot open the session file's lock: \(error)")
        }
        // A lock file another user made could be held by that user for ever: only this user's counts.
        guard owner == getuid() else {
            throw Failure(.config, "\(lockPath) belongs to another user; delete it and run the command again")
        }
        do throws(SystemCallError) {
            try lock.call("flock") { flock($0, LOCK_EX) }
        } catch {
            throw Failure(.config, "cannot lock the session file: \(error)")
        }
        defer { try? lock.close() }
        return try await body()
    }

    /// The stored session, or nil; a file others can read, or that holds no session, is exit 78.
    func load() throws(Failure) -> AccountSession? {
        do throws(AuthHandlerClientError) {
            return try store.load()
        } catch {
            throw Failure(.config, error.message)
        }
    }
}
