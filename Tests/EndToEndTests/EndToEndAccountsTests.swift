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
}

/// The accounts backend through the real binary (HTTP-API.md §3.10, docs/ACCOUNTS.md).
@Suite(.serialized) struct EndToEndAccountsTests {
    @Test("sign-up, sign-in and a refresh through the binary; the ID token names this daemon as its issuer")
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
