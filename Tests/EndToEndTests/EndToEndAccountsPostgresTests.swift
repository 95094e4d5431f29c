import AuthHandlerHTTP
import Foundation
import TestSupport
import Testing

/// The accounts backend on a PostgreSQL server that stops and comes back, through the real binary (docs/OPERATIONS.md
/// "With the accounts backend: one PostgreSQL").
@Suite(.serialized) struct EndToEndAccountsPostgresTests {
    static let password = "correct horse battery staple"

    @Test("PostgreSQL stopped: 503 unavailable within the timeout, /readyz 503, starts go on; all back when it returns")
    func databaseStoppedAndStarted() async throws {
        let server = try await PostgresTestServer.start()
        defer { try? FileManager.default.removeItem(at: server.directory) }
        try await withCleanup({ await server.stop() }) {
            try await AccountsDatabaseEngine.$server.withValue(server) {
                try await withEndToEnd(backend: .accounts(engine: .postgres)) { e2e in
                    try await Self.outage(e2e, server)
                }
            }
        }
    }

    static func outage(_ e2e: EndToEnd, _ server: PostgresTestServer) async throws {
        let signUp = try await e2e.passwordSignUp("alice@example.com", password)
        let refreshToken = try #require(signUp["refreshToken"]?.stringValue)
        #expect(try await e2e.get(e2e.daemonURL + "/readyz").status == 200)

        await server.stop()
        for attempt in 0..<3 {
            let started = ContinuousClock.now
            let signIn = try await e2e.passwordSignIn("alice@example.com", password)
            // statementTimeoutMs is 2000 (EndToEndHarness): the answer comes within it, plus the hashing.
            #expect(ContinuousClock.now - started < .seconds(4), "attempt \(attempt)")
            #expect(signIn.status == 503, "sign-in while PostgreSQL is down: \(signIn.text)")
            #expect(signIn.text.contains("unavailable"), "\(signIn.text)")
        }
        let refresh = try await e2e.refreshGrant(refreshToken)
        #expect(refresh.status == 503, "refresh while PostgreSQL is down: \(refresh.text)")
        let ready = try await e2e.get(e2e.daemonURL + "/readyz")
        #expect(ready.status == 503 && ready.text.contains("accounts database"), "\(ready.text)")
        let start = try await e2e.get(e2e.startURL("google.com"), freshBrowser: true)
        #expect(start.status == 302, "a start while PostgreSQL is down: \(start.status)")

        try await server.start()
        #expect(try await e2e.get(e2e.daemonURL + "/readyz").status == 200)
        let signIn = try await e2e.passwordSignIn("alice@example.com", password)
        #expect(signIn.status == 200, "sign-in after PostgreSQL returned: \(signIn.text)")
        #expect(signIn.json?["localId"] == signUp["localId"])
        let refreshed = try await e2e.refreshGrant(refreshToken)
        #expect(refreshed.status == 200, "the session survived the outage: \(refreshed.text)")
    }

    @Test(
        "two instances on one database: sign-up on one, sign-in on the other; concurrent refreshes and sign-ups; kill -9"
    )
    func twoInstances() async throws {
        // A hashing budget (per instance) roomy enough that only the sign-in throttle refuses.
        let backend = EndToEnd.Backend.accounts(
            members: #""password": {"rateLimit": {"perMinute": 600, "burst": 100}}"#, engine: .postgres)
        try await withEndToEnd(backend: backend) { first in
            try await AccountsDatabaseEngine.$sharedWith.withValue(first.directory) {
                try await withEndToEnd(backend: backend) { second in
                    try await Self.shared(first, second)
                }
            }
        }
    }

    static func shared(_ first: EndToEnd, _ second: EndToEnd) async throws {
        let signUp = try await first.passwordSignUp("alice@example.com", password)
        let signIn = try await second.passwordSignIn("alice@example.com", password)
        #expect(signIn.status == 200, "sign-in on the other instance: \(signIn.text)")
        #expect(signIn.json?["localId"] == signUp["localId"])

        // One token presented to both at once: one family stays, whatever each answers.
        var token = try #require(signIn.json?["refreshToken"]?.stringValue)
        for round in 0..<5 {
            let presented = token
            async let onFirst = first.refreshGrant(presented)
            async let onSecond = second.refreshGrant(presented)
            let answers = try await [onFirst, onSecond]
            let successors = Set(
                answers.filter { $0.status == 200 }.compactMap { $0.json?["refresh_token"]?.stringValue })
            #expect(successors.count == 1, "round \(round): \(answers.map(\.text))")
            for answer in answers where answer.status != 200 {
                #expect(answer.json?["error"]?.stringValue == "invalid_grant", "round \(round): \(answer.text)")
            }
            token = try #require(successors.first)
        }

        // One e-mail signed up on both at once: one account, one 409.
        for round in 0..<3 {
            let body = #"{"email": "bob\#(round)@example.com", "password": "\#(password)"}"#
            async let onFirst = first.postJSON("/__/auth/password/sign-up", body)
            async let onSecond = second.postJSON("/__/auth/password/sign-up", body)
            let statuses = try await [onFirst, onSecond].map(\.status).sorted()
            #expect(statuses == [200, 409], "round \(round): \(statuses)")
        }

        // The sign-in throttle counts across instances: 10 wrong passwords alternating between them (5 each, which
        // neither would refuse alone) refuse the 11th on both.
        _ = try await first.passwordSignUp("carol@example.com", password)
        for attempt in 0..<10 {
            let instance = attempt % 2 == 0 ? first : second
            let wrong = try await instance.passwordSignIn("carol@example.com", "not the password at all")
            #expect(wrong.status == 400, "attempt \(attempt): \(wrong.text)")
        }
        for instance in [first, second] {
            let refused = try await instance.passwordSignIn("carol@example.com", password)
            #expect(refused.status == 429, "after 10 failures on two instances: \(refused.text)")
        }

        // An instance killed: the other serves its users and the sessions it started.
        let onFirst = try await first.passwordSignIn("alice@example.com", password)
        let firstToken = try #require(onFirst.json?["refreshToken"]?.stringValue)
        first.daemon.send(SIGKILL)
        _ = await first.daemon.exitCode()
        #expect(try await second.refreshGrant(firstToken).status == 200)
        #expect(try await second.refreshGrant(token).status == 200)
        #expect(try await second.passwordSignIn("alice@example.com", password).status == 200)
    }
}

/// Two instances on one Redis and one PostgreSQL behind nginx, round robin (issue 27's process test; docs/OPERATIONS.md
/// "With the accounts backend: one PostgreSQL").
@Suite(.serialized) struct EndToEndAccountsScaleOutTests {
    static let password = "correct horse battery staple"

    @Test(
        "behind nginx: sign-up, sign-in and refreshes on alternating instances, a double refresh, PostgreSQL restarted, kill -9"
    )
    func twoInstancesBehindNginx() async throws {
        let server = try await PostgresTestServer.start()
        defer { try? FileManager.default.removeItem(at: server.directory) }
        try await withCleanup({ await server.stop() }) {
            try await AccountsDatabaseEngine.$server.withValue(server) {
                let scale = try await ScaleOut.start(
                    count: 2, behindNginx: true,
                    backend: .accounts(
                        members: #""password": {"rateLimit": {"perMinute": 600, "burst": 100}}"#, engine: .postgres))
                try await withCleanup({ await scale.stop() }) { try await Self.run(scale, server) }
            }
        }
    }

    static func post(_ scale: ScaleOut, _ path: String, _ body: [UInt8], form: Bool = false) async throws
        -> OutboundResponse
    {
        let type = form ? "application/x-www-form-urlencoded" : "application/json"
        let headers: HTTPHeaders = ["Content-Type": type, "Accept": "application/json"]
        let response = try await scale.client.send(
            OutboundRequest(method: "POST", url: scale.frontURL + path, headers: headers, body: body))
        // Every answer is a success or one of HTTP-API.md §3.5's errors.
        #expect([200, 400, 409, 429, 503].contains(response.status), "\(path): \(response.status) \(response.text)")
        return response
    }

    static func signIn(_ scale: ScaleOut) async throws -> OutboundResponse {
        try await post(
            scale, "/__/auth/password/sign-in",
            Array(#"{"email": "alice@example.com", "password": "\#(password)"}"#.utf8))
    }

    static func refresh(_ scale: ScaleOut, _ token: String) async throws -> OutboundResponse {
        try await post(
            scale, "/__/auth/token",
            Array(
                FormURLEncoding.encode([
                    .init(name: "grant_type", value: "refresh_token"), .init(name: "refresh_token", value: token),
                ]).utf8),
            form: true)
    }

    static func run(_ scale: ScaleOut, _ server: PostgresTestServer) async throws {
        let signUp = try await post(
            scale, "/__/auth/password/sign-up",
            Array(#"{"email": "alice@example.com", "password": "\#(password)"}"#.utf8))
        #expect(signUp.status == 200, "\(signUp.text)")
        let signIn = try await signIn(scale)
        #expect(signIn.status == 200 && signIn.json?["localId"] == signUp.json?["localId"], "\(signIn.text)")
        var token = try #require(signIn.json?["refreshToken"]?.stringValue)
        for _ in 0..<4 {
            let refreshed = try await refresh(scale, token)
            #expect(refreshed.status == 200, "\(refreshed.text)")
            token = try #require(refreshed.json?["refresh_token"]?.stringValue)
        }
        let presented = token
        async let one = refresh(scale, presented)
        async let other = refresh(scale, presented)
        let answers = try await [one, other]
        let successors = Set(answers.filter { $0.status == 200 }.compactMap { $0.json?["refresh_token"]?.stringValue })
        #expect(successors.count == 1, "\(answers.map(\.text))")
        token = try #require(successors.first)

        await server.stop()
        #expect(try await Self.signIn(scale).status == 503)
        try await server.start()
        #expect(try await Self.signIn(scale).status == 200)

        scale.instances[0].process.send(SIGKILL)
        _ = await scale.instances[0].process.exitCode()
        for _ in 0..<2 {
            let refreshed = try await refresh(scale, token)
            #expect(refreshed.status == 200, "after kill -9: \(refreshed.text)")
            token = try #require(refreshed.json?["refresh_token"]?.stringValue)
        }
    }
}
