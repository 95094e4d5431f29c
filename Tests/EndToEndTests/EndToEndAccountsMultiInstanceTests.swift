import AuthHandlerHTTP
import Foundation
import Synchronization
import TestSupport
import Testing

/// Two `auth-handler serve` instances with backend `accounts` on one PostgreSQL database, sharing one Redis session
/// store, behind nginx (issue 27 §1; docs/OPERATIONS.md "Two instances on Redis and PostgreSQL behind nginx"): each
/// accepts the other's ID tokens and refresh tokens, a token rotated on both at once leaves one live family, a stopped
/// or hung PostgreSQL is answered `503 unavailable` within the statement timeout and loses nothing, a killed Redis
/// stops neither password sign-ins nor refreshes, and a `kill -9` of one instance loses nothing. Every answer is checked
/// to be a success or an error in its documented form (HTTP-API.md §3.5; RFC 6749 §5.2 for the token endpoint's
/// refusals). It asserts timing, so `make test` runs it alone.
@Suite(.serialized) struct EndToEndAccountsMultiInstanceTests {
    @Test("two instances on Redis and PostgreSQL behind nginx: shared accounts, one family, outages lose nothing")
    func twoInstances() async throws {
        let postgres = try await PostgresTestServer.start()
        defer { try? FileManager.default.removeItem(at: postgres.directory) }
        try await withCleanup({ await postgres.stop() }) {
            // The sign-in throttle and hashing budget count per client, and every client here is 127.0.0.1 or nginx.
            let backend = EndToEnd.Backend.accounts(
                members: #""password": {"rateLimit": {"perMinute": 6000, "burst": 500}}"#, engine: .postgres)
            let cluster = try await AccountsDatabaseEngine.$server.withValue(postgres) {
                try await ScaleOut.start(count: 2, behindNginx: true, backend: backend)
            }
            try await withCleanup({ await cluster.stop() }) {
                let run = MultiInstanceRun(cluster)
                var state = try await run.acrossInstances()
                try await run.concurrentDoubleRefresh(&state)
                try await run.concurrentSignUps(&state)
                try await run.throttleAcrossInstances()
                try await run.postgresOutage(postgres, &state)
                try await run.postgresHung(postgres, &state)
                try await run.postgresFailsMidLoad(.stopped, postgres, &state)
                try await run.postgresFailsMidLoad(.hung, postgres, &state)
                try await run.redisOutage(&state)
                try await run.instanceKilled(&state)
                #expect(run.answers.withLock { $0 } > 60, "too few answers were checked to mean anything")
            }
        }
    }
}

/// What must survive every outage: the accounts (e-mail → localId), one live refresh token per session, and ID
/// tokens signed by each instance.
struct MultiInstanceState {
    static let password = "a passphrase shared by instances"
    /// The index in ``refreshTokens`` of alice's first session, the one rotated alternately and concurrently.
    static let aliceAlternating = 1
    var users: [String: String] = [:]
    var refreshTokens: [String] = []
    /// An ID token signed by the second instance (the one later killed), with its user's localId.
    var secondInstanceIDToken: (token: String, localID: String) = ("", "")
}

/// The steps of the two-instance test; each request goes through ``send(_:_:_:)``, which checks its answer's form.
final class MultiInstanceRun: Sendable {
    let cluster: ScaleOut
    let client: HTTPClient
    /// How many answers were checked.
    let answers = Mutex(0)
    /// The statement timeout in every instance's config (EndToEnd.config: `statementTimeoutMs` 2000 on a test's own server).
    static let statementTimeout: Duration = .seconds(2)

    init(_ cluster: ScaleOut) {
        self.cluster = cluster
        self.client = cluster.client
    }

    var first: String { cluster.instances[0].url }
    var second: String { cluster.instances[1].url }
    var front: String { cluster.frontURL }

    // MARK: Requests

    /// Sends `request` from a client without cookies and checks the answer: a success, or an error in the form its
    /// endpoint documents (HTTP-API.md §3.5's `{"error": {"code", "message"}}`; at `/__/auth/token` also RFC 6749
    /// §5.2's `{"error", "error_description"}`), with §3.5's headers, never a proxy's page or a hang.
    func send(_ method: String, _ url: String, _ body: String? = nil, form: Bool = false, bearer: String? = nil)
        async throws -> OutboundResponse
    {
        var headers: HTTPHeaders = ["Accept": "application/json"]
        if body != nil {
            headers.set(name: "Content-Type", value: form ? "application/x-www-form-urlencoded" : "application/json")
        }
        if let bearer { headers.set(name: "Authorization", value: "Bearer " + bearer) }
        let response = try await client.send(
            OutboundRequest(method: method, url: url, headers: headers, body: Array((body ?? "").utf8)))
        answers.withLock { $0 += 1 }
        Self.checkForm(response, url)
        return response
    }

    static func checkForm(_ response: OutboundResponse, _ url: String) {
        let path = URLComponents(string: url)?.path ?? url
        #expect(response.headers["Cache-Control"] == "no-store", "\(path): \(response.status) without §3.5's headers")
        #expect(response.headers["X-Content-Type-Options"] == "nosniff", "\(path): no §3.5 headers")
        if (200..<300).contains(response.status) { return }
        let json = response.json
        if let code = json?["error"]?["code"]?.stringValue, !code.isEmpty,
            json?["error"]?["message"]?.stringValue != nil
        {
            return
        }
        if path.hasSuffix("/__/auth/token"), response.status == 400,
            json?["error"]?.stringValue == "invalid_grant", json?["error_description"]?.stringValue != nil
        {
            return
        }
        Issue.record(
            "\(path): \(response.status) is neither a success nor a documented error: \(response.text.prefix(300))")
    }

    func signUp(_ origin: String, _ email: String) async throws -> OutboundResponse {
        try await send(
            "POST", origin + "/__/auth/password/sign-up",
            #"{"email": "\#(email)", "password": "\#(MultiInstanceState.password)"}"#)
    }

    func signIn(_ origin: String, _ email: String) async throws -> OutboundResponse {
        try await send(
            "POST", origin + "/__/auth/password/sign-in",
            #"{"email": "\#(email)", "password": "\#(MultiInstanceState.password)"}"#)
    }

    func refresh(_ origin: String, _ token: String) async throws -> OutboundResponse {
        let body = FormURLEncoding.encode([
            URLFormField(name: "grant_type", value: "refresh_token"), URLFormField(name: "refresh_token", value: token),
        ])
        return try await send("POST", origin + "/__/auth/token", body, form: true)
    }

    /// `GET /__/auth/user` at `origin` with `idToken`: the account's localId, or nil with the status recorded.
    func account(_ origin: String, _ idToken: String) async throws -> OutboundResponse {
        try await send("GET", origin + "/__/auth/user", bearer: idToken)
    }

    /// `/readyz` at `origin`: `200 ready`, or `503` with one of the reasons HTTP-API.md §3.4 names.
    func readiness(_ origin: String) async throws -> Int {
        let response = try await client.send(OutboundRequest(method: "GET", url: origin + "/readyz"))
        answers.withLock { $0 += 1 }
        #expect(response.headers["Cache-Control"] == "no-store")
        let documented = ["ready\n", "accounts database unavailable\n", "session store unavailable\n"]
        #expect(documented.contains(response.text), "/readyz answered \(response.status) \(response.text)")
        return response.status
    }

    /// The successor in a `200` token answer, with its ID token accepted by `verifyAt` for `localID`.
    func successor(_ response: OutboundResponse, verifyAt: String, localID: String) async throws -> String {
        #expect(response.status == 200, "refresh: \(response.status) \(response.text)")
        let idToken = try #require(response.json?["id_token"]?.stringValue)
        let account = try await account(verifyAt, idToken)
        #expect(account.status == 200 && account.json?["localId"]?.stringValue == localID)
        return try #require(response.json?["refresh_token"]?.stringValue)
    }
}

extension MultiInstanceRun {
    // MARK: Steps

    /// Sign-up on the first, sign-in on the second, each accepting the other's ID tokens; a duplicate sign-up on the
    /// other instance; refresh alternating between them; sign-ups and sign-ins through nginx.
    func acrossInstances() async throws -> MultiInstanceState {
        var state = MultiInstanceState()
        let up = try await signUp(first, "alice@example.com")
        #expect(up.status == 200, "sign-up: \(up.text)")
        let alice = try #require(up.json?["localId"]?.stringValue)
        state.users["alice@example.com"] = alice
        #expect(try await account(second, try #require(up.json?["idToken"]?.stringValue)).status == 200)
        let duplicate = try await signUp(second, "alice@example.com")
        #expect(duplicate.status == 409 && duplicate.json?["error"]?["code"]?.stringValue == "email-already-in-use")

        let signIn = try await signIn(second, "alice@example.com")
        #expect(signIn.status == 200 && signIn.json?["localId"]?.stringValue == alice, "\(signIn.status)")
        let secondToken = try #require(signIn.json?["idToken"]?.stringValue)
        #expect(try await account(first, secondToken).json?["localId"]?.stringValue == alice)
        state.secondInstanceIDToken = (secondToken, alice)
        state.refreshTokens.append(try #require(signIn.json?["refreshToken"]?.stringValue))

        // Alternating: rotated on one, its ID token checked on the other.
        var token = try #require(up.json?["refreshToken"]?.stringValue)
        for round in 0..<6 {
            let (at, verify) = round % 2 == 0 ? (second, first) : (first, second)
            token = try await successor(try await refresh(at, token), verifyAt: verify, localID: alice)
        }
        state.refreshTokens.append(token)
        #expect(state.refreshTokens.count - 1 == MultiInstanceState.aliceAlternating)

        for index in 0..<4 {
            let email = "user\(index)@example.com"
            let created = try await signUp(front, email)
            #expect(created.status == 200, "sign-up through nginx: \(created.text)")
            state.users[email] = try #require(created.json?["localId"]?.stringValue)
            let again = try await self.signIn(front, email)
            #expect(again.status == 200 && again.json?["localId"]?.stringValue == state.users[email])
            state.refreshTokens.append(try #require(again.json?["refreshToken"]?.stringValue))
        }
        return state
    }

    /// One token presented to both instances at once, several times: every `200` carries the same successor (the reuse
    /// window's), any other answer is `invalid_grant`, and the family goes on from that one successor.
    func concurrentDoubleRefresh(_ state: inout MultiInstanceState) async throws {
        let alice = try #require(state.users["alice@example.com"])
        var token = state.refreshTokens[MultiInstanceState.aliceAlternating]
        for _ in 0..<5 {
            let presented = token
            async let onFirst = refresh(first, presented)
            async let onSecond = refresh(second, presented)
            let answers = try await [onFirst, onSecond]
            var successors = Set<String>()
            for answer in answers {
                if answer.status == 200 {
                    successors.insert(try #require(answer.json?["refresh_token"]?.stringValue))
                } else {
                    #expect(answer.status == 400 && answer.json?["error"]?.stringValue == "invalid_grant")
                }
            }
            #expect(successors.count == 1, "one token rotated on two instances gave \(successors.count) families")
            token = try #require(successors.first)
            // The family is alive: its one successor rotates.
            token = try await successor(try await refresh(front, token), verifyAt: first, localID: alice)
        }
        state.refreshTokens[MultiInstanceState.aliceAlternating] = token
    }

    /// One e-mail signed up on both instances at once, three times over: one account and one `409
    /// email-already-in-use` each time, and the account signs in.
    func concurrentSignUps(_ state: inout MultiInstanceState) async throws {
        for round in 0..<3 {
            let email = "both\(round)@example.com"
            async let onFirst = signUp(first, email)
            async let onSecond = signUp(second, email)
            let answers = try await [onFirst, onSecond].sorted { $0.status < $1.status }
            #expect(answers.map(\.status) == [200, 409], "round \(round): \(answers.map(\.status))")
            #expect(answers.last?.errorCode == "email-already-in-use")
            state.users[email] = try #require(answers.first?.json?["localId"]?.stringValue)
        }
    }

    /// The sign-in throttle counts across instances (docs/ACCOUNTS.md "Guessing is throttled"): 10 wrong passwords for
    /// one e-mail alternating between the instances (5 each, which neither would refuse alone) refuse the next sign-in
    /// on both, the right password too, with `Retry-After`. The account is left out of ``MultiInstanceState/users``.
    func throttleAcrossInstances() async throws {
        let email = "guessed@example.com"
        #expect(try await signUp(first, email).status == 200)
        for attempt in 0..<10 {
            let wrong = try await send(
                "POST", (attempt % 2 == 0 ? first : second) + "/__/auth/password/sign-in",
                #"{"email": "\#(email)", "password": "not the password at all"}"#)
            #expect(
                wrong.status == 400 && wrong.errorCode == "invalid-credential", "attempt \(attempt): \(wrong.status)")
        }
        for origin in [first, second] {
            let refused = try await signIn(origin, email)
            #expect(
                refused.status == 429 && refused.errorCode == "too-many-requests",
                "after 10 failures: \(refused.status)")
            #expect(refused.headers["Retry-After"] != nil, "a 429 without Retry-After")
        }
    }
}

extension MultiInstanceRun {
    /// PostgreSQL stopped (immediate shutdown, as a crash): every accounts endpoint on both instances answers
    /// `503 unavailable` within the statement timeout, `/readyz` says so, a provider sign-in still starts; started
    /// again: both instances are ready, every account and refresh token is still there, the pending sign-in ends.
    func postgresOutage(_ postgres: PostgresTestServer, _ state: inout MultiInstanceState) async throws {
        await postgres.stop()
        let browser = cluster.browser()
        let pending = try await browser.start("google.com", user: "bob")
        var slowest: Duration = .zero
        for origin in [first, second, front] {
            for attempt in 0..<3 {
                let started = ContinuousClock.now
                let answer =
                    switch attempt {
                    case 0: try await signIn(origin, "alice@example.com")
                    case 1: try await refresh(origin, try #require(state.refreshTokens.first))
                    default: try await account(origin, state.secondInstanceIDToken.token)
                    }
                slowest = max(slowest, ContinuousClock.now - started)
                #expect(answer.status == 503 && answer.json?["error"]?["code"]?.stringValue == "unavailable")
                #expect(answer.headers["Retry-After"] != nil, "a 503 without Retry-After")
            }
            let ready = try await client.send(OutboundRequest(method: "GET", url: origin + "/readyz"))
            #expect(ready.status == 503 && ready.text == "accounts database unavailable\n", "\(origin): \(ready.text)")
        }
        print("PostgreSQL down: the slowest 503 took \(slowest)")
        // A process on a shared two-core machine may be descheduled for a while: half a second of slack.
        #expect(slowest < Self.statementTimeout + .milliseconds(500), "an answer waited \(slowest)")

        try await postgres.start()
        try await awaitReady([first, second])
        for (email, localID) in state.users {
            let again = try await signIn(email.hasPrefix("user") ? second : first, email)
            #expect(again.status == 200 && again.json?["localId"]?.stringValue == localID, "\(email) lost")
        }
        try await rotateAll(&state, at: [first, second])
        let done = try await browser.deliver(pending, accept: "application/json")
        let code = try #require(ScaleOutBrowser.code(of: done), "the pending sign-in: \(done.status) \(done.text)")
        let redeemed = try await browser.redeem(code)
        MultiInstanceRun.checkForm(redeemed, front + "/__/auth/result")
        #expect(redeemed.status == 200, "the sign-in started during the outage: \(redeemed.text)")
    }

    /// Waits (bounded) until `/readyz` is `200` at every origin.
    func awaitReady(_ origins: [String]) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        for origin in origins {
            while try await readiness(origin) != 200 {
                guard ContinuousClock.now < deadline else {
                    Issue.record("\(origin) not ready 30 s after its database came back")
                    return
                }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    /// Rotates every live refresh token once, at `origins` in turn; each must succeed.
    func rotateAll(_ state: inout MultiInstanceState, at origins: [String]) async throws {
        for index in state.refreshTokens.indices {
            let answer = try await refresh(origins[index % origins.count], state.refreshTokens[index])
            #expect(answer.status == 200, "a refresh token was lost: \(answer.status) \(answer.text)")
            if let next = answer.json?["refresh_token"]?.stringValue { state.refreshTokens[index] = next }
        }
    }

    /// `kill -9` of the second instance: through nginx everything is still served (sign-ins, sign-ups, every refresh
    /// token), the killed instance's ID token is accepted by the first, and the first stays ready.
    func instanceKilled(_ state: inout MultiInstanceState) async throws {
        await cluster.instances[1].kill9()
        for _ in 0..<2 {
            for (email, localID) in state.users {
                let again = try await signIn(front, email)
                #expect(again.status == 200 && again.json?["localId"]?.stringValue == localID, "\(email) lost")
            }
            try await rotateAll(&state, at: [front])
        }
        let created = try await signUp(front, "after-kill@example.com")
        #expect(created.status == 200, "sign-up after the kill: \(created.text)")
        let (idToken, localID) = state.secondInstanceIDToken
        #expect(try await account(first, idToken).json?["localId"]?.stringValue == localID)
        #expect(try await readiness(first) == 200)
        #expect(try await readiness(front) == 200)
    }
}

extension MultiInstanceRun {
    /// Redis killed: `/readyz` says so on both instances; the accounts endpoints, which keep nothing in Redis, go on
    /// answering from PostgreSQL; a provider sign-in still starts. Restarted: both instances are ready again by
    /// themselves, and every account and refresh token is still there.
    func redisOutage(_ state: inout MultiInstanceState) async throws {
        await cluster.redis.stop()
        for origin in [first, second] {
            // The instance notices a dead connection at its next command or ping.
            let deadline = ContinuousClock.now + .seconds(10)
            while try await readiness(origin) == 200, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(try await readiness(origin) == 503, "/readyz at \(origin) ready without Redis")
            let signIn = try await signIn(origin, "alice@example.com")
            #expect(signIn.status == 200, "a password sign-in needs Redis: \(signIn.status)")
        }
        try await rotateAll(&state, at: [first, second, front])
        _ = try await cluster.browser().start("google.com", user: "bob")
        try await cluster.redis.start()
        try await awaitReady([first, second])
        try await rotateAll(&state, at: [front])
    }
}

extension MultiInstanceRun {
    /// PostgreSQL hung (every process of it stopped with SIGSTOP: connections open, nothing answers): each accounts
    /// request still gets `503 unavailable` within the statement timeout, never waits on; resumed, all goes on.
    func postgresHung(_ postgres: PostgresTestServer, _ state: inout MultiInstanceState) async throws {
        try Self.signalAll(of: postgres, SIGSTOP)
        var slowest: Duration = .zero
        for origin in [first, second] {
            let started = ContinuousClock.now
            let answer = try await refresh(origin, state.refreshTokens[0])
            slowest = max(slowest, ContinuousClock.now - started)
            #expect(answer.status == 503 && answer.json?["error"]?["code"]?.stringValue == "unavailable")
        }
        try Self.signalAll(of: postgres, SIGCONT)
        print("PostgreSQL hung: the slowest 503 took \(slowest)")
        #expect(slowest < Self.statementTimeout + .milliseconds(500), "an answer waited \(slowest)")
        try await awaitReady([first, second])
        try await rotateAll(&state, at: [first, second])
    }

    /// Sends `signal` to the server's postmaster (data/postmaster.pid) and every process it started (proc(5)).
    static func signalAll(of postgres: PostgresTestServer, _ signal: Int32) throws {
        let pidFile = postgres.directory.appendingPathComponent("data/postmaster.pid")
        let master = try #require(
            try String(contentsOf: pidFile, encoding: .utf8).split(separator: "\n").first.flatMap { Int32($0) })
        var processes = [master]
        for entry in try FileManager.default.contentsOfDirectory(atPath: "/proc") {
            guard let pid = Int32(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            // After the command's closing parenthesis: the state, then the parent's pid.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, Int32(fields[1]) == master { processes.append(pid) }
        }
        for pid in processes { kill(pid, signal) }
    }
}
