import AuthHandlerClient
import AuthHandlerHTTP
import Foundation
import Synchronization
import TestSupport
import Testing

/// `AuthHandlerClient`'s account calls (docs/CLIENTS.md "Accounts in Swift") against the real `auth-handler serve` on
/// the accounts backend, with the file session store, as a Linux program would use them.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct EndToEndClientAccountsTests {
    /// The daemon's backend: the accounts on `engine`, with a password budget above the tests' sign-ins.
    static func backend(_ engine: AccountsDatabaseEngine) -> EndToEnd.Backend {
        .accounts(members: #""password": {"rateLimit": {"perMinute": 600, "burst": 50}}"#, engine: engine)
    }
    static let password = "client passphrase for the accounts tests"

    /// A client of `e2e` whose sessions are kept in the file `path`.
    static func client(_ e2e: EndToEnd, _ path: String) throws -> AuthHandlerClient {
        AuthHandlerClient(
            baseURL: try #require(URL(string: e2e.daemonURL)), sessionStore: FileSessionStore(path: path))
    }

    /// A fresh session file's path in a directory removed after `body`.
    static func withSessionFile(_ body: (String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("client-accounts-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(directory.appendingPathComponent("session.json").path)
    }

    /// The daemon's count of successful refresh grants (`/metrics`, HTTP-API.md §3.4).
    static func refreshes(_ e2e: EndToEnd) async throws -> Int {
        let text = try await e2e.get(e2e.daemonURL + "/metrics", freshBrowser: true).text
        let prefix = #"auth_handler_accounts_refreshes_total{outcome="success"} "#
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { return 0 }
        return try #require(Int(line.dropFirst(prefix.count)), "\(line)")
    }

    @Test(
        "sign-up, sign-in, idToken, a new client restored from the file store, sign-out",
        arguments: AccountsDatabaseEngine.allCases)
    func lifecycle(engine: AccountsDatabaseEngine) async throws {
        try await withEndToEnd(backend: Self.backend(engine)) { e2e in
            try await Self.withSessionFile { path in
                let client = try Self.client(e2e, path)
                var changes = client.authStateChanges.makeAsyncIterator()
                #expect(await changes.next() == .some(nil), "the stream did not start with the signed-out state")

                let created = try await client.signUp(
                    email: "swift@example.com", password: Self.password, displayName: "Swift Client")
                #expect(created.email == "swift@example.com" && created.displayName == "Swift Client")
                #expect(created.signInProvider == "password")
                #expect(await changes.next()??.uid == created.uid)
                #expect(await client.currentUser?.uid == created.uid)

                let signedIn = try await client.signIn(email: "swift@example.com", password: Self.password)
                #expect(signedIn.uid == created.uid)
                let stored = try #require(try FileSessionStore(path: path).load(), "the file store holds no session")
                #expect(try await client.idToken() == stored.idToken, "a fresh ID token was refreshed anyway")

                // A forced refresh rotates the refresh token; the file keeps the successor.
                let before = try await Self.refreshes(e2e)
                let refreshed = try await client.idToken(forceRefresh: true)
                #expect(try await Self.refreshes(e2e) == before + 1)
                let rotated = try #require(try FileSessionStore(path: path).load())
                #expect(rotated.idToken == refreshed && rotated.refreshToken != stored.refreshToken)

                // A new client (a relaunch) restores the session from the file, and its refresh token works.
                let relaunched = try Self.client(e2e, path)
                #expect(try await relaunched.restoreSession()?.uid == created.uid)
                #expect(await relaunched.currentUser?.email == "swift@example.com")
                let afterRelaunch = try await relaunched.idToken(forceRefresh: true)
                #expect(AccountUser(idToken: afterRelaunch)?.uid == created.uid)

                try await relaunched.signOut()
                #expect(await relaunched.currentUser == nil)
                #expect(try FileSessionStore(path: path).load() == nil, "sign-out left the session file")
                // The daemon ended the session: its last refresh token is refused.
                let grant = try await e2e.refreshGrant(rotated.refreshToken)
                #expect(grant.status == 400 && grant.json?["error"]?.stringValue == "invalid_grant", "\(grant.text)")
            }
        }
    }

    @Test(
        "20 concurrent idToken(forceRefresh: true) calls make one refresh call and get the same token",
        arguments: AccountsDatabaseEngine.allCases)
    func refreshRace(engine: AccountsDatabaseEngine) async throws {
        try await withEndToEnd(backend: Self.backend(engine)) { e2e in
            // The client reaches the daemon through a proxy that holds the refresh until all 20 callers have asked:
            // without it a caller the scheduler starts late may find the refresh done and rightly make another.
            let (proxy, proxyURL) = try await Self.holdingProxy(e2e, path: "/__/auth/token")
            try await withCleanup({ await proxy.kill() }) {
                try await Self.withSessionFile { path in
                    let client = AuthHandlerClient(baseURL: proxyURL, sessionStore: FileSessionStore(path: path))
                    try await client.signUp(email: "race@example.com", password: Self.password)
                    let before = try await Self.refreshes(e2e)
                    let asked = Arrivals()
                    let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                        for _ in 0..<20 {
                            group.addTask {
                                asked.count.withLock { $0 += 1 }
                                return try await client.idToken(forceRefresh: true)
                            }
                        }
                        #expect(await proxy.waitForLine(containing: "held"), "no refresh reached the proxy")
                        while asked.count.withLock({ $0 }) < 20 { try await Task.sleep(for: .milliseconds(10)) }
                        try proxy.writeInput(Array("release\n".utf8))
                        return try await group.reduce(into: Set<String>()) { $0.insert($1) }
                    }
                    #expect(tokens.count == 1, "the 20 callers got \(tokens.count) different ID tokens")
                    #expect(try await Self.refreshes(e2e) == before + 1, "not exactly one refresh reached the daemon")
                    #expect(try FileSessionStore(path: path).load()?.idToken == tokens.first)
                }
            }
        }
    }

    /// `hold_proxy.py` in front of `e2e`'s daemon, holding each request for `path` until a line on its stdin, and its
    /// URL.
    static func holdingProxy(_ e2e: EndToEnd, path: String) async throws -> (TestProcess, URL) {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("hold_proxy.py")
        let port = try #require(e2e.daemonURL.split(separator: ":").last.map(String.init))
        let proxy = try TestProcess(
            "/usr/bin/python3", ["-I", script.path, port, path], package: "python3", openInput: true)
        guard let listening = await proxy.waitForLine(startingWith: "listening "),
            let url = URL(string: "http://127.0.0.1:\(listening)")
        else {
            proxy.terminateIfRunning()
            throw TestProcessError("hold_proxy.py did not start: \(proxy.standardError)")
        }
        return (proxy, url)
    }

    @Test(
        "a refresh token the daemon refuses (invalid_grant) signs the client out and clears the file",
        arguments: AccountsDatabaseEngine.allCases)
    func refusedRefreshSignsOut(engine: AccountsDatabaseEngine) async throws {
        try await withEndToEnd(backend: Self.backend(engine)) { e2e in
            try await Self.withSessionFile { path in
                let client = try Self.client(e2e, path)
                try await client.signUp(email: "ended@example.com", password: Self.password)
                let session = try #require(try FileSessionStore(path: path).load())
                // The session is ended behind the client's back (another device's global sign-out, say).
                let ended = try await e2e.postJSON(
                    "/__/auth/sign-out", #"{"refreshToken": "\#(session.refreshToken)"}"#)
                #expect(ended.status == 200, "\(ended.text)")
                var changes = client.authStateChanges.makeAsyncIterator()
                #expect(await changes.next()??.email == "ended@example.com")
                await #expect {
                    try await client.idToken(forceRefresh: true)
                } throws: { error in
                    guard case .signedOut? = error as? AuthHandlerClientError else { return false }
                    return true
                }
                #expect(await client.currentUser == nil)
                #expect(try FileSessionStore(path: path).load() == nil)
                #expect(await changes.next() == .some(nil), "the listeners were not told of the sign-out")
            }
        }
    }

    @Test("the daemon's refusals reach the app with their codes", arguments: AccountsDatabaseEngine.allCases)
    func errorCodes(engine: AccountsDatabaseEngine) async throws {
        try await withEndToEnd(backend: Self.backend(engine)) { e2e in
            try await Self.withSessionFile { path in
                let client = try Self.client(e2e, path)
                try await client.signUp(email: "codes@example.com", password: Self.password)
                await #expect {
                    try await client.signIn(email: "codes@example.com", password: "not the password at all")
                } throws: { error in
                    (error as? AuthHandlerClientError)?.code == "invalid-credential"
                }
                await #expect {
                    try await client.signUp(email: "codes@example.com", password: Self.password)
                } throws: { error in
                    (error as? AuthHandlerClientError)?.code == "email-already-in-use"
                }
                // A failed sign-in leaves the signed-in user as it was.
                #expect(await client.currentUser?.email == "codes@example.com")
            }
        }
    }

    @Test(
        "a provider sign-in redeemed by complete signs the client in too, with adopt(signIn:)",
        arguments: AccountsDatabaseEngine.allCases)
    func adoptProviderSignIn(engine: AccountsDatabaseEngine) async throws {
        try await withEndToEnd(backend: Self.backend(engine)) { e2e in
            try await Self.withSessionFile { path in
                let client = try Self.client(e2e, path)
                let request = try EndToEndClientTests.begin(client, "google.com", user: "alice")
                let result = try await client.complete(
                    request, callbackURL: try await EndToEndClientTests.browse(e2e, request))
                let user = try await client.adopt(signIn: result)
                #expect(user.uid == result.signIn?["localId"]?.stringValue)
                #expect(user.signInProvider == "google.com")
                #expect(await client.currentUser?.uid == user.uid)
                #expect(AccountUser(idToken: try await client.idToken(forceRefresh: true))?.uid == user.uid)
                #expect(try FileSessionStore(path: path).load() != nil)
                // Google is the account's only sign-in method: unlinking it is refused.
                await #expect {
                    try await client.unlink(providerId: "google.com")
                } throws: { error in
                    (error as? AuthHandlerClientError)?.code == "last-sign-in-method"
                }
            }
        }
    }

    @Test(
        "account-exists, then the password sign-in links the pending credential with the request it came from",
        arguments: AccountsDatabaseEngine.allCases)
    func linkAfterAccountExists(engine: AccountsDatabaseEngine) async throws {
        try await withMailingDaemon(engine: engine) { e2e, sink in
            try await Self.withSessionFile { path in
                let client = try Self.client(e2e, path)
                let signedUp = try await client.signUp(email: "alice@example.com", password: Self.password)
                try await e2e.verify(try await client.idToken(), sink: sink)
                try await client.signOut()
                let request = try EndToEndClientTests.begin(client, "google.com", user: "alice")
                let callbackURL = try await EndToEndClientTests.browse(e2e, request)
                var pending: String?
                do throws(AuthHandlerClientError) {
                    let result = try await client.complete(request, callbackURL: callbackURL)
                    Issue.record("Google's sign-in of a verified password account's address signed in: \(result)")
                } catch .accountExistsWithDifferentCredential(let email, let methods, _, let credential, _) {
                    #expect(email == "alice@example.com" && methods == ["password"])
                    pending = credential
                } catch {
                    Issue.record("complete threw \(error), not account-exists")
                }
                let pendingCredential = try #require(pending)
                _ = try await client.signIn(email: "alice@example.com", password: Self.password)
                let account = try await client.link(pendingCredential: pendingCredential, from: request)
                let providers = account["providerUserInfo"]?.arrayValue?.compactMap { $0["providerId"]?.stringValue }
                #expect(providers == ["google.com"], "\(account)")
                #expect(account["localId"]?.stringValue == signedUp.uid)
                // Single use: the same credential again is refused.
                await #expect {
                    try await client.link(pendingCredential: pendingCredential, from: request)
                } throws: { error in
                    (error as? AuthHandlerClientError)?.code == "invalid-pending-credential"
                }
            }
        }
    }

    @Test(
        "the account's own calls: profile, reauthentication, password, deletion",
        arguments: AccountsDatabaseEngine.allCases)
    func accountCalls(engine: AccountsDatabaseEngine) async throws {
        try await withEndToEnd(backend: Self.backend(engine)) { e2e in
            try await Self.withSessionFile { path in
                let client = try Self.client(e2e, path)
                let created = try await client.signUp(email: "own@example.com", password: Self.password)
                let account = try await client.updateProfile(displayName: "Renamed")
                #expect(account["displayName"]?.stringValue == "Renamed", "\(account)")
                _ = try await client.idToken(forceRefresh: true)
                #expect(await client.currentUser?.displayName == "Renamed")

                try await client.reauthenticate(password: Self.password)
                #expect(await client.currentUser?.uid == created.uid)

                let newPassword = "a brand new passphrase for the client"
                try await client.updatePassword(newPassword)
                #expect(await client.currentUser?.uid == created.uid)
                let other = try Self.client(e2e, path + ".other")
                #expect(try await other.signIn(email: "own@example.com", password: newPassword).uid == created.uid)

                // This daemon has no backend.email: the mail calls are refused as such, not as malformed requests.
                await #expect {
                    try await client.sendPasswordReset(email: "own@example.com")
                } throws: { error in
                    (error as? AuthHandlerClientError)?.code == "operation-not-allowed"
                }
                await #expect {
                    try await client.sendEmailVerification()
                } throws: { error in
                    (error as? AuthHandlerClientError)?.code == "operation-not-allowed"
                }

                try await client.deleteUser()
                #expect(await client.currentUser == nil)
                #expect(try FileSessionStore(path: path).load() == nil)
                await #expect {
                    try await other.signIn(email: "own@example.com", password: newPassword)
                } throws: { error in
                    (error as? AuthHandlerClientError)?.code == "invalid-credential"
                }
            }
        }
    }
}

/// How many of a test's concurrent callers have started.
final class Arrivals: Sendable {
    let count = Mutex(0)
}
