import AuthHandlerClient
import AuthHandlerHTTP
import Foundation
import TestSupport
import Testing

/// `auth-handler login` ending signed in to the server's accounts, then `token` and `logout` (HTTP-API.md §1.7,
/// §1.9): the real binary against the real daemon on backend `accounts` with device sign-in and the fake IdP.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct EndToEndLoginAccountsTests {
    static let secret = EndToEndAccountsOpsTests.introspectionSecret

    /// A daemon on the accounts backend on `engine` with device sign-in and introspection (to check the tokens
    /// `token` prints), and a directory for the session files.
    static func withAccountsDaemon(
        _ engine: AccountsDatabaseEngine, _ body: (EndToEnd, URL) async throws -> Void
    ) async throws {
        try await withDirectory { directory in
            try await withEndToEnd(
                backend: .accounts(
                    members: #""introspectionSecret": {"env": "E2E_INTROSPECTION_SECRET"}"#, engine: engine),
                settings: EndToEndDeviceTests.settings(), environment: ["E2E_INTROSPECTION_SECRET": secret]
            ) { e2e in try await body(e2e, directory) }
        }
    }

    /// Runs `auth-handler login` as alice at Google, confirming in the test's browser; returns the finished process.
    static func login(_ e2e: EndToEnd, _ extra: [String], environment: [String: String] = [:]) async throws
        -> TestProcess
    {
        let login = try TestProcess(
            authHandler: [
                "login", "--server", e2e.daemonURL, "--provider", "google.com", "--param", "login_hint=alice",
            ]
                + extra, environment: environment)
        let complete = try #require(await login.waitForErrorLine(startingWith: "or open "), "\(login.standardError)")
        #expect(try await EndToEndDeviceTests.confirm(e2e, completeURI: complete) == "done")
        #expect(await login.exitCode() == 0, "\(login.standardError)")
        return login
    }

    /// Runs a `token` or `logout` command to its end: its exit code, stdout and stderr.
    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws
        -> (code: Int32, output: String, error: String)
    {
        let process = try TestProcess(authHandler: arguments, environment: environment)
        let code = await process.exitCode()
        return (code, process.standardOutput, process.standardError)
    }

    /// Whether the daemon accepts `idToken` now: signed with its key, unexpired, its session live (RFC 7662).
    static func isActive(_ e2e: EndToEnd, _ idToken: String) async throws -> Bool {
        let answer = try await EndToEndAccountsOpsTests.introspect(e2e, idToken, authorization: "Bearer " + secret)
        return answer.json?["active"]?.boolValue == true
    }

    static func mode(_ path: String) throws -> Int? {
        try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
    }

    /// Runs `body` with a new directory's URL (created), removed after it.
    static func withDirectory(_ body: (URL) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("login-accounts-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(directory)
    }

    @Test(
        "login keeps the session 0600 and prints no refresh token; token, --force-refresh, logout",
        arguments: AccountsDatabaseEngine.allCases)
    func loginTokenLogout(engine: AccountsDatabaseEngine) async throws {
        try await Self.withAccountsDaemon(engine) { e2e, directory in
            let path = directory.appendingPathComponent("state/session.json").path
            let login = try await Self.login(e2e, ["--session-file", path])
            let stored = try #require(try FileSessionStore(path: path).load(), "login kept no session")
            #expect(try Self.mode(path) == 0o600)
            #expect(try Self.mode(directory.appendingPathComponent("state").path) == 0o700)
            #expect(!login.standardOutput.contains(stored.refreshToken), "the refresh token reached stdout")
            #expect(!login.standardError.contains(stored.refreshToken), "the refresh token reached stderr")
            let result = try #require(JSONValue.parse(Array(login.standardOutput.utf8)), "\(login.standardOutput)")
            #expect(result["providerId"]?.stringValue == "google.com")
            #expect(result["signIn"]?["localId"]?.stringValue == AccountUser(idToken: stored.idToken)?.uid)
            #expect(result["signIn"]?["refreshToken"] == nil)
            #expect(login.standardError.contains("the session is kept in \(path)"))

            // A fresh stored token is printed as it is: no refresh reaches the daemon.
            let session = ["--server", e2e.daemonURL, "--session-file", path]
            let before = try await EndToEndClientAccountsTests.refreshes(e2e)
            let token = try await Self.run(["token"] + session)
            #expect(token.code == 0, "\(token.error)")
            #expect(token.output == stored.idToken + "\n")
            #expect(try await Self.isActive(e2e, stored.idToken))
            #expect(try await EndToEndClientAccountsTests.refreshes(e2e) == before)

            // --force-refresh rotates: the file holds the successor, and the token printed is the new one.
            let forced = try await Self.run(["token", "--force-refresh"] + session)
            #expect(forced.code == 0, "\(forced.error)")
            let rotated = try #require(try FileSessionStore(path: path).load())
            #expect(rotated.refreshToken != stored.refreshToken && forced.output == rotated.idToken + "\n")
            #expect(try await Self.isActive(e2e, rotated.idToken))
            #expect(try await EndToEndClientAccountsTests.refreshes(e2e) == before + 1)
            for secret in [stored.refreshToken, rotated.refreshToken] {
                #expect(!(token.output + token.error + forced.output + forced.error).contains(secret))
            }
            // The old token is used: the daemon answers it only with the successor the file already holds (within
            // 10 s of its use, docs/ACCOUNTS.md), so the family never forks.
            let reused = try await e2e.refreshGrant(stored.refreshToken)
            #expect(reused.json?["refresh_token"]?.stringValue == rotated.refreshToken, "\(reused.text)")

            // logout ends the session at the daemon and removes the file; token then asks for a login.
            let logout = try await Self.run(["logout"] + session)
            #expect(logout.code == 0, "\(logout.error)")
            #expect(!FileManager.default.fileExists(atPath: path))
            let refused = try await e2e.refreshGrant(rotated.refreshToken)
            #expect(refused.json?["error"]?.stringValue == "invalid_grant", "\(refused.text)")
            let after = try await Self.run(["token"] + session)
            #expect(after.code == 4 && after.output.isEmpty)
            #expect(after.error.contains("not signed in") && after.error.contains("auth-handler login --server"))
        }
    }

    @Test(
        "two token --force-refresh at once take turns: one refresh reaches the daemon, both print it",
        arguments: AccountsDatabaseEngine.allCases)
    func concurrentTokens(engine: AccountsDatabaseEngine) async throws {
        try await Self.withAccountsDaemon(engine) { e2e, state in
            // The default file: one per server under $XDG_STATE_HOME.
            let environment = ["XDG_STATE_HOME": state.path]
            _ = try await Self.login(e2e, [], environment: environment)
            let port = try #require(e2e.daemonURL.split(separator: ":").last)
            let path = state.appendingPathComponent("auth-handler/sessions/http_127.0.0.1_\(port).json").path
            let stored = try #require(try FileSessionStore(path: path).load(), "no session at the default path")
            #expect(try Self.mode(path) == 0o600)

            // The test holds the lock while both start, so both have read the session before either refreshes.
            let lock = try LockedFile(path + ".lock")
            let before = try await EndToEndClientAccountsTests.refreshes(e2e)
            let arguments = ["token", "--server", e2e.daemonURL, "--force-refresh"]
            let first = try TestProcess(authHandler: arguments, environment: environment)
            let second = try TestProcess(authHandler: arguments, environment: environment)
            try await lock.waitForWaiters(2)
            lock.unlock()
            #expect(await first.exitCode() == 0, "\(first.standardError)")
            #expect(await second.exitCode() == 0, "\(second.standardError)")
            #expect(try await EndToEndClientAccountsTests.refreshes(e2e) == before + 1)
            let rotated = try #require(try FileSessionStore(path: path).load(), "the session did not survive")
            #expect(rotated.refreshToken != stored.refreshToken)
            #expect(first.standardOutput == rotated.idToken + "\n" && second.standardOutput == first.standardOutput)
            #expect(try await Self.isActive(e2e, rotated.idToken))
            let refreshed = try await e2e.refreshGrant(rotated.refreshToken)
            #expect(refreshed.status == 200, "the kept refresh token no longer works: \(refreshed.text)")
        }
    }

    @Test(
        "past the 10 s reuse window the replaced refresh token is refused; token then says to log in again",
        arguments: AccountsDatabaseEngine.allCases)
    func replacedTokenRefused(engine: AccountsDatabaseEngine) async throws {
        try await Self.withAccountsDaemon(engine) { e2e, directory in
            let path = directory.appendingPathComponent("session.json").path
            _ = try await Self.login(e2e, ["--session-file", path])
            let stored = try #require(try FileSessionStore(path: path).load())
            let session = ["--server", e2e.daemonURL, "--session-file", path]
            #expect(try await Self.run(["token", "--force-refresh"] + session).code == 0)
            // Twice, so the successor of the first token has been used: only then is a late reuse a theft.
            #expect(try await Self.run(["token", "--force-refresh"] + session).code == 0)
            // The window for concurrent use is fixed at 10 s (docs/ACCOUNTS.md), so the test waits past it once.
            try await Task.sleep(for: EndToEndAccountsRefreshTests.concurrentWindow + .seconds(1))
            let reused = try await e2e.refreshGrant(stored.refreshToken)
            #expect(reused.json?["error"]?.stringValue == "invalid_grant", "\(reused.text)")
            // The reuse revoked the session (RFC 9700 §4.14.2): token reports it ended and removes the file.
            let ended = try await Self.run(["token", "--force-refresh"] + session)
            #expect(ended.code == 4 && ended.output.isEmpty, "\(ended.error)")
            #expect(ended.error.contains("the session ended"), "\(ended.error)")
            #expect(ended.error.contains("sign in again with 'auth-handler login --server"), "\(ended.error)")
            #expect(!FileManager.default.fileExists(atPath: path), "the ended session's file was kept")
        }
    }

    @Test(
        "logout --scope others keeps this session, --scope global ends it and its ID tokens",
        arguments: AccountsDatabaseEngine.allCases)
    func logoutScopes(engine: AccountsDatabaseEngine) async throws {
        try await Self.withAccountsDaemon(engine) { e2e, directory in
            let path = directory.appendingPathComponent("session.json").path
            _ = try await Self.login(e2e, ["--session-file", path])
            let session = ["--server", e2e.daemonURL, "--session-file", path]
            let others = try await Self.run(["logout", "--scope", "others"] + session)
            #expect(others.code == 0, "\(others.error)")
            let kept = try #require(try FileSessionStore(path: path).load(), "--scope others removed the file")
            #expect(try await Self.isActive(e2e, kept.idToken))
            let global = try await Self.run(["logout", "--scope", "global"] + session)
            #expect(global.code == 0, "\(global.error)")
            #expect(!FileManager.default.fileExists(atPath: path))
            #expect(try await !Self.isActive(e2e, kept.idToken), "an ID token outlived the global sign-out")
        }
    }

    @Test("an unreachable server is exit 2 and keeps the session; a file others can read is exit 78")
    func unreachableAndUnsafe() async throws {
        try await Self.withDirectory { directory in
            let path = directory.appendingPathComponent("session.json").path
            // An ID token that cannot be read is due for a refresh, which goes to a port nobody listens on.
            let stale = AccountSession(refreshToken: "stored-refresh-token-0123456789", idToken: "not.a.jwt")
            try FileSessionStore(path: path).save(stale)
            let server = "http://127.0.0.1:\(try freeLoopbackPort())"
            let unreachable = try await Self.run(["token", "--server", server, "--session-file", path])
            #expect(
                unreachable.code == 2 && unreachable.error.contains("cannot reach \(server)"), "\(unreachable.error)")
            #expect(try FileSessionStore(path: path).load() == stale, "a failed refresh lost the session")
            #expect(!unreachable.error.contains(stale.refreshToken))
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
            let unsafe = try await Self.run(["token", "--server", server, "--session-file", path])
            #expect(unsafe.code == 78 && unsafe.error.contains("readable or writable by others"), "\(unsafe.error)")
        }
    }

    @Test("a session file that is a symbolic link is refused; nothing kept is exit 4")
    func refusals() async throws {
        try await Self.withDirectory { directory in
            let target = directory.appendingPathComponent("elsewhere.json").path
            let link = directory.appendingPathComponent("session.json").path
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
            let server = "http://127.0.0.1:9"
            for command in [["token"], ["logout"], ["login", "--provider", "google.com"]] {
                let refused = try await Self.run(command + ["--server", server, "--session-file", link])
                #expect(refused.code == 64, "\(command): \(refused.error)")
                #expect(refused.error.contains("is a symbolic link"), "\(command): \(refused.error)")
            }
            // The lock file beside a session file is never opened through a link either.
            let other = directory.appendingPathComponent("other.json").path
            try FileSessionStore(path: other).save(AccountSession(refreshToken: "r", idToken: "i"))
            try FileManager.default.createSymbolicLink(atPath: other + ".lock", withDestinationPath: target)
            let lockLink = try await Self.run(["token", "--server", server, "--session-file", other])
            #expect(lockLink.code == 78 && lockLink.error.contains("lock"), "\(lockLink.error)")
            #expect(!FileManager.default.fileExists(atPath: target), "something was written through the link")
            let none = try await Self.run(
                ["token", "--server", server], environment: ["XDG_STATE_HOME": directory.path])
            #expect(none.code == 4, "\(none.error)")
            #expect(
                none.error.contains("run 'auth-handler login --server \(server) --provider ID' first"), "\(none.error)")
            let stateDirectory = directory.appendingPathComponent("auth-handler").path
            #expect(!FileManager.default.fileExists(atPath: stateDirectory), "token made a directory for no session")
        }
    }
}

/// A file the test holds an exclusive flock(2) on, and the processes waiting for it, as /proc/locks lists them
/// (proc(5)): blocked requests are the lines with `->` naming the file's device and inode.
final class LockedFile: Sendable {
    private let descriptor: Int32
    private let inode: UInt

    init(_ path: String) throws {
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0, flock(descriptor, LOCK_EX) == 0 else {
            throw TestProcessError("cannot lock \(path): errno \(errno)")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw TestProcessError("cannot fstat \(path)") }
        inode = UInt(status.st_ino)
    }

    /// Waits (polling /proc/locks, no fixed sleep) until `count` requests wait for the lock.
    func waitForWaiters(_ count: Int) async throws {
        while true {
            let text = try String(contentsOfFile: "/proc/locks", encoding: .utf8)
            let waiting = text.split(separator: "\n").filter { line in
                line.contains("->") && line.split(separator: " ").contains { $0.hasSuffix(":\(inode)") }
            }
            if waiting.count >= count { return }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Releases the lock; the descriptor closes when the value goes.
    func unlock() {
        flock(descriptor, LOCK_UN)
    }

    deinit {
        close(descriptor)
    }
}
