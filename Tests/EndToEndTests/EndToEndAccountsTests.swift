import AuthHandlerHTTP
import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// A JSON POST to an accounts endpoint (HTTP-API.md §3.10), with `Authorization: Bearer` when given, and the
    /// same-origin header a browser module sends when `script` is set.
    func postJSON(
        _ path: String, _ json: String, bearer: String? = nil, script: Bool = false, freshBrowser: Bool = false
    ) async throws -> OutboundResponse {
        var headers: HTTPHeaders = ["Content-Type": "application/json", "Accept": "application/json"]
        if let bearer { headers.set(name: "Authorization", value: "Bearer " + bearer) }
        if script { headers.set(name: "X-Auth-Handler", value: "1") }
        return try await send(
            OutboundRequest(method: "POST", url: daemonURL + path, headers: headers, body: Array(json.utf8)),
            freshBrowser: freshBrowser)
    }

    /// `POST /__/auth/password/sign-up`, which must succeed; its answer.
    func passwordSignUp(_ email: String, _ password: String) async throws -> JSONValue {
        let response = try await postJSON(
            "/__/auth/password/sign-up", #"{"email": "\#(email)", "password": "\#(password)"}"#)
        #expect(response.status == 200, "sign-up of \(email): \(response.text)")
        return try #require(response.json)
    }

    /// `POST /__/auth/password/sign-in`.
    func passwordSignIn(_ email: String, _ password: String, freshBrowser: Bool = true) async throws
        -> OutboundResponse
    {
        try await postJSON(
            "/__/auth/password/sign-in", #"{"email": "\#(email)", "password": "\#(password)"}"#,
            freshBrowser: freshBrowser)
    }

    /// `POST /__/auth/token` with `grant_type=refresh_token` (RFC 6749 §6), from a browser without cookies.
    func refreshGrant(_ refreshToken: String) async throws -> OutboundResponse {
        try await postForm(
            daemonURL + "/__/auth/token",
            [.init(name: "grant_type", value: "refresh_token"), .init(name: "refresh_token", value: refreshToken)],
            freshBrowser: true)
    }

    /// A provider sign-in as `user` walked to the app and redeemed with `verifier` (the app's by default).
    func providerSignIn(_ provider: String, user: String, verifier: String = appVerifier) async throws
        -> OutboundResponse
    {
        let walk = try await signIn(provider, user: user)
        let code = try #require(walk.appQuery.first(named: "code"), "\(walk.appQuery)")
        return try await redeem(code: code, verifier: verifier)
    }

    /// The accounts database's bytes: the file and its WAL (and shared-memory index), as an attacker who copied them
    /// would have them; on PostgreSQL the database as `pg_dump` writes it, as an attacker with a backup would.
    func accountsDatabaseBytes() async throws -> [UInt8] {
        if AccountsDatabaseEngine.isPostgres(directory) { return try await postgresDump() }
        var bytes: [UInt8] = []
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let url = directory.appendingPathComponent("accounts.sqlite" + suffix)
            if let data = try? Data(contentsOf: url) { bytes += data }
        }
        #expect(bytes.count > 4096, "the accounts database is missing from \(directory.path)")
        return bytes
    }

    /// A request with `Authorization: Bearer` to an accounts endpoint, from a browser without cookies.
    func withBearer(_ method: String, _ path: String, bearer: String) async throws -> OutboundResponse {
        let headers: HTTPHeaders = ["Accept": "application/json", "Authorization": "Bearer " + bearer]
        return try await send(
            OutboundRequest(method: method, url: daemonURL + path, headers: headers), freshBrowser: true)
    }

    /// Marks the account of `normalizedEmail` verified (or not) in the database, as the verification mail's link
    /// would (the e-mail actions are tested on their own; here only the state matters).
    func markEmailVerified(_ normalizedEmail: String, _ verified: Bool = true) async throws {
        try await setAccountColumn("email_verified", to: .bool(verified), of: normalizedEmail)
    }
}

extension [UInt8] {
    /// Whether `needle`'s UTF-8 bytes occur in these bytes.
    func containsText(_ needle: String) -> Bool { containsBytes(Array(needle.utf8)) }

    /// Whether `pattern` occurs in these bytes.
    func containsBytes(_ pattern: [UInt8]) -> Bool {
        guard !pattern.isEmpty, pattern.count <= count else { return false }
        for start in 0...(count - pattern.count) where self[start] == pattern[0] {
            if self[start..<(start + pattern.count)].elementsEqual(pattern) { return true }
        }
        return false
    }
}

/// The accounts backend through the real binary (HTTP-API.md §3.10, docs/ACCOUNTS.md).
@Suite(.serialized) struct EndToEndAccountsTests {
    @Test(
        "sign-up, sign-in and a refresh through the binary; the ID token names this daemon as its issuer",
        arguments: AccountsDatabaseEngine.allCases)
    func signUpSignInRefresh(engine: AccountsDatabaseEngine) async throws {
        try await engine.run { try await signUpSignInRefresh() }
    }

    func signUpSignInRefresh() async throws {
        try await withEndToEnd(backend: .accounts()) { e2e in
            let password = "correct horse battery staple"
            let signUp = try await e2e.postJSON(
                "/__/auth/password/sign-up", #"{"email": "Alice@Example.com", "password": "\#(password)"}"#)
            #expect(signUp.status == 200, "sign-up: \(signUp.text)")
            #expect(signUp.json?["isNewUser"]?.boolValue == true)
            let signIn = try await e2e.postJSON(
                "/__/auth/password/sign-in", #"{"email": "alice@example.com", "password": "\#(password)"}"#)
            #expect(signIn.status == 200, "sign-in: \(signIn.text)")
            #expect(signIn.json?["localId"]?.stringValue == signUp.json?["localId"]?.stringValue)
            let refreshToken = try #require(signIn.json?["refreshToken"]?.stringValue)
            let refreshed = try await e2e.postForm(
                e2e.daemonURL + "/__/auth/token",
                [.init(name: "grant_type", value: "refresh_token"), .init(name: "refresh_token", value: refreshToken)])
            #expect(refreshed.status == 200, "refresh: \(refreshed.text)")
            #expect(refreshed.json?["token_type"]?.stringValue == "Bearer")
            let discovery = try await e2e.get(e2e.daemonURL + "/__/auth/.well-known/openid-configuration")
            #expect(discovery.json?["issuer"]?.stringValue == e2e.daemonURL + "/__/auth")
        }
    }
}
