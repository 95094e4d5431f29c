import AuthHandlerCrypto
import AuthHandlerHTTP
import Foundation
import TestSupport
import Testing

/// What operators and APIs get from the accounts backend through the binary: `POST /__/auth/introspect` (RFC 7662)
/// and the accounts' `/metrics` (HTTP-API.md §3.10, docs/OPERATIONS.md "Metrics").
@Suite(.serialized) struct EndToEndAccountsOpsTests {
    static let introspectionSecret = "e2e-introspection-secret-0123456789abcdef"
    static let password = "correct horse battery staple"

    static func introspect(_ e2e: EndToEnd, _ token: String, authorization: String?) async throws -> OutboundResponse {
        var headers: HTTPHeaders = ["Content-Type": "application/x-www-form-urlencoded"]
        if let authorization { headers.set(name: "Authorization", value: authorization) }
        return try await e2e.send(
            OutboundRequest(
                method: "POST", url: e2e.daemonURL + "/__/auth/introspect", headers: headers,
                body: Array(FormURLEncoding.encode([URLFormField(name: "token", value: token)]).utf8)),
            freshBrowser: true)
    }

    @Test(
        "introspection needs the operator secret and answers active only while the session is live",
        arguments: AccountsDatabaseEngine.allCases)
    func introspection(engine: AccountsDatabaseEngine) async throws {
        try await engine.run { try await introspection() }
    }

    func introspection() async throws {
        try await withEndToEnd(
            backend: .accounts(members: #""introspectionSecret": {"env": "E2E_INTROSPECTION_SECRET"}"#),
            environment: ["E2E_INTROSPECTION_SECRET": Self.introspectionSecret]
        ) { e2e in
            let signUp = try await e2e.postJSON(
                "/__/auth/password/sign-up", #"{"email": "ops@example.com", "password": "\#(Self.password)"}"#)
            let idToken = try #require(signUp.json?["idToken"]?.stringValue, "sign-up: \(signUp.text)")
            let refreshToken = try #require(signUp.json?["refreshToken"]?.stringValue)

            let anonymous = try await Self.introspect(e2e, idToken, authorization: nil)
            #expect(anonymous.status == 401)
            #expect(anonymous.json?["error"]?.stringValue == "invalid_client")
            #expect(anonymous.json?["active"] == nil, "nothing about the token without the secret")
            let wrong = try await Self.introspect(e2e, idToken, authorization: "Bearer not-the-secret")
            #expect(wrong.status == 401)

            let active = try await Self.introspect(e2e, idToken, authorization: "Bearer " + Self.introspectionSecret)
            #expect(active.status == 200, "\(active.text)")
            #expect(active.json?["active"]?.boolValue == true)
            #expect(active.json?["sub"]?.stringValue == signUp.json?["localId"]?.stringValue)
            #expect(active.json?["iss"]?.stringValue == e2e.daemonURL + "/__/auth")
            #expect(active.json?["valid_since"]?.numberValue != nil)
            #expect(active.headers["Cache-Control"]?.contains("no-store") == true)
            let basic = "Basic " + Base64.encode(Array(("api:" + Self.introspectionSecret).utf8))
            #expect(try await Self.introspect(e2e, idToken, authorization: basic).json?["active"]?.boolValue == true)
            let garbage = try await Self.introspect(e2e, "not.a.token", authorization: basic)
            #expect(garbage.status == 200 && garbage.json?["active"]?.boolValue == false)

            // Signing out ends the session: the unexpired ID token is no longer active.
            let signOut = try await e2e.postJSON("/__/auth/sign-out", #"{"refreshToken": "\#(refreshToken)"}"#)
            #expect(signOut.status == 200, "\(signOut.text)")
            let ended = try await Self.introspect(e2e, idToken, authorization: basic)
            #expect(ended.json?["active"]?.boolValue == false, "\(ended.text)")
            #expect(ended.json?.objectValue?.count == 1, "an inactive token is only active: false (RFC 7662 §2.2)")
            await e2e.daemon.stop()
            for secret in [Self.introspectionSecret, idToken, refreshToken, Self.password] {
                #expect(!e2e.daemon.standardError.contains(secret), "a secret reached the log")
            }
        }
    }

    @Test("without introspectionSecret the endpoint is off", arguments: AccountsDatabaseEngine.allCases)
    func introspectionOff(engine: AccountsDatabaseEngine) async throws {
        try await engine.run { try await introspectionOff() }
    }

    func introspectionOff() async throws {
        try await withEndToEnd(backend: .accounts()) { e2e in
            let response = try await Self.introspect(e2e, "x", authorization: "Bearer anything")
            #expect(response.status == 404, "\(response.text)")
            #expect(response.text.contains("introspectionSecret"))
        }
    }

    @Test(
        "/metrics counts sign-ups, sign-ins by method and outcome, refreshes, throttling and hashing",
        arguments: AccountsDatabaseEngine.allCases)
    func metrics(engine: AccountsDatabaseEngine) async throws {
        try await engine.run { try await metrics() }
    }

    func metrics() async throws {
        try await withEndToEnd(
            backend: .accounts(members: #""password": {"rateLimit": {"perMinute": 1, "burst": 3}}"#)
        ) { e2e in
            let before = try await e2e.get(e2e.daemonURL + "/metrics", freshBrowser: true)
            #expect(before.text.contains("auth_handler_accounts_hashing_queue{state=\"waiting\"} 0"))
            let body = #"{"email": "metrics@example.com", "password": "\#(Self.password)"}"#
            let signUp = try await e2e.postJSON("/__/auth/password/sign-up", body)
            let refreshToken = try #require(signUp.json?["refreshToken"]?.stringValue, "\(signUp.text)")
            _ = try await e2e.postJSON("/__/auth/password/sign-in", body)
            _ = try await e2e.postJSON(
                "/__/auth/password/sign-in", #"{"email": "metrics@example.com", "password": "wrong password!!"}"#)
            _ = try await e2e.postForm(
                e2e.daemonURL + "/__/auth/token",
                [.init(name: "grant_type", value: "refresh_token"), .init(name: "refresh_token", value: refreshToken)])
            // The budget (burst 3) is spent: the fourth hashing request is throttled without hashing.
            let throttled = try await e2e.postJSON("/__/auth/password/sign-in", body)
            #expect(throttled.status == 429, "\(throttled.text)")
            let text = try await e2e.get(e2e.daemonURL + "/metrics", freshBrowser: true).text
            for line in [
                #"auth_handler_accounts_signups_total{outcome="success"} 1"#,
                #"auth_handler_accounts_signins_total{method="password",outcome="success"} 1"#,
                #"auth_handler_accounts_signins_total{method="password",outcome="invalid-credential"} 1"#,
                #"auth_handler_accounts_signins_total{method="password",outcome="too-many-requests"} 1"#,
                #"auth_handler_accounts_refreshes_total{outcome="success"} 1"#,
                #"auth_handler_accounts_throttled_total{endpoint="/__/auth/password/sign-in"} 1"#,
                #"auth_handler_accounts_hashing_seconds_count 3"#,
                #"auth_handler_accounts_hashing_refused_total{reason="budget"} 1"#,
            ] {
                #expect(text.contains(line), "missing: \(line)")
            }
        }
    }
}
