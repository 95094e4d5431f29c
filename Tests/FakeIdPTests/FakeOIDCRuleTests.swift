import AuthHandlerCore
import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerProtocols
import Foundation
import TestSupport
import Testing

@testable import FakeIdP

/// Every rule the OIDC endpoints enforce: a request that breaks it, and the documented refusal.
@Suite(.serialized) struct FakeOIDCRuleTests {
    /// The fields with `name` replaced by `value` (or removed when nil).
    private func replacing(_ fields: [URLFormField], _ name: String, with value: String?) -> [URLFormField] {
        var fields = fields.filter { $0.name != name }
        if let value { fields.append(URLFormField(name: name, value: value)) }
        return fields
    }

    /// Expects a redirect to the client carrying `error`, the state and the real issuer.
    private func expectErrorRedirect(_ response: OutboundResponse, _ error: String, issuer: String) {
        #expect(response.status == 302, "\(response.text)")
        #expect(response.headers["Location"]?.hasPrefix(FakeOIDC.redirectURI + "?") == true)
        let query = response.locationQuery
        #expect(query.first(named: "error") == error)
        #expect(query.first(named: "error_description")?.isEmpty == false)
        #expect(query.first(named: "state") == "state-123")
        #expect(query.first(named: "iss") == issuer)
        #expect(query.first(named: "code") == nil)
    }

    /// Expects a token endpoint error with `status` and `error`.
    private func expectTokenError(_ response: OutboundResponse, status: Int, _ error: String) {
        #expect(response.status == status, "\(response.text)")
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.jsonObject?["error"] as? String == error)
        #expect((response.jsonObject?["error_description"] as? String)?.isEmpty == false)
        #expect(response.jsonObject?["access_token"] == nil)
    }

    // MARK: authorize: client and redirect URI, never a redirect

    @Test(arguments: [
        "http://127.0.0.1:4000/__/auth/handler/", "http://127.0.0.1:4000/other",
        "http://evil.example:4000/__/auth/handler",
        "https://127.0.0.1:4000/__/auth/handler", "http://127.0.0.1:4000/__/auth/handler?x=1",
        "http://127.0.0.1/__/auth/handler",
    ])
    func wrongRedirectURIIsA400PageWithoutLocation(redirectURI: String) async throws {
        try await withFakeIdP { idp, client in
            let response = try await idp.authorize(
                client, replacing(FakeOIDC.authorizeFields(), "redirect_uri", with: redirectURI))
            #expect(response.status == 400)
            #expect(response.headers["Location"] == nil)
            #expect(response.headers["Content-Type"]?.hasPrefix("text/html") == true)
            #expect(response.text.contains("not registered"))
            #expect(!response.text.contains("code="))
        }
    }

    @Test func exactRedirectURIsFromTheConfigurationAreTheOnlyOnes() async throws {
        let configuration = FakeIdPConfiguration(redirectURIs: ["http://127.0.0.1:9/cb"])
        try await withFakeIdP(configuration: configuration) { idp, client in
            let refused = try await idp.authorize(client, FakeOIDC.authorizeFields())
            #expect(refused.status == 400)
            #expect(refused.headers["Location"] == nil)
            let accepted = try await idp.authorize(
                client, replacing(FakeOIDC.authorizeFields(), "redirect_uri", with: "http://127.0.0.1:9/cb"))
            #expect(accepted.status == 302)
            #expect(accepted.headers["Location"]?.hasPrefix("http://127.0.0.1:9/cb?code=") == true)
        }
    }

    @Test func unknownMissingOrRepeatedClientIsA400Page() async throws {
        try await withFakeIdP { idp, client in
            let fields = FakeOIDC.authorizeFields()
            for broken in [
                replacing(fields, "client_id", with: "<no-such-client>"), replacing(fields, "client_id", with: nil),
                fields + [URLFormField(name: "client_id", value: FakeOIDC.clientID)],
                replacing(fields, "redirect_uri", with: nil),
                fields + [URLFormField(name: "redirect_uri", value: FakeOIDC.redirectURI)],
            ] {
                let response = try await idp.authorize(client, broken)
                #expect(response.status == 400)
                #expect(response.headers["Location"] == nil)
                #expect(!response.text.contains("<no-such-client>"))
            }
        }
    }

    @Test func redirectURIIsCheckedBeforeAnythingElse() async throws {
        try await withFakeIdP { idp, client in
            let fields = [
                URLFormField(name: "response_type", value: "token"),
                URLFormField(name: "client_id", value: FakeOIDC.clientID),
                URLFormField(name: "redirect_uri", value: "http://evil.example/__/auth/handler"),
                URLFormField(name: "state", value: "state-123"),
            ]
            let response = try await idp.authorize(client, fields)
            #expect(response.status == 400)
            #expect(response.headers["Location"] == nil)
        }
    }

    // MARK: authorize: errors sent back to the client

    @Test func responseTypeMustBeCode() async throws {
        try await withFakeIdP { idp, client in
            let token = try await idp.authorize(
                client, replacing(FakeOIDC.authorizeFields(), "response_type", with: "token"))
            expectErrorRedirect(token, "unsupported_response_type", issuer: idp.issuer)
            let missing = try await idp.authorize(
                client, replacing(FakeOIDC.authorizeFields(), "response_type", with: nil))
            expectErrorRedirect(missing, "invalid_request", issuer: idp.issuer)
        }
    }

    @Test func plainChallengeMethodIsRefused() async throws {
        try await withFakeIdP { idp, client in
            let plain = try await idp.authorize(
                client,
                FakeOIDC.authorizeFields(extra: [
                    URLFormField(name: "code_challenge", value: FakeOIDC.verifier),
                    URLFormField(name: "code_challenge_method", value: "plain"),
                ]))
            expectErrorRedirect(plain, "invalid_request", issuer: idp.issuer)
            let implicitPlain = try await idp.authorize(
                client,
                FakeOIDC.authorizeFields(extra: [URLFormField(name: "code_challenge", value: FakeOIDC.verifier)]))
            expectErrorRedirect(implicitPlain, "invalid_request", issuer: idp.issuer)
            let methodWithoutChallenge = try await idp.authorize(
                client, FakeOIDC.authorizeFields(extra: [URLFormField(name: "code_challenge_method", value: "S256")]))
            expectErrorRedirect(methodWithoutChallenge, "invalid_request", issuer: idp.issuer)
            let shortChallenge = try await idp.authorize(
                client,
                FakeOIDC.authorizeFields(extra: [
                    URLFormField(name: "code_challenge", value: "too-short"),
                    URLFormField(name: "code_challenge_method", value: "S256"),
                ]))
            expectErrorRedirect(shortChallenge, "invalid_request", issuer: idp.issuer)
        }
    }

    @Test func publicClientMustSendACodeChallenge() async throws {
        try await withFakeIdP { idp, client in
            let response = try await idp.authorize(client, FakeOIDC.authorizeFields(clientID: FakeOIDC.publicClientID))
            expectErrorRedirect(response, "invalid_request", issuer: idp.issuer)
            #expect(response.locationQuery.first(named: "error_description")?.contains("PKCE") == true)
        }
    }

    @Test func unsupportedResponseModeRepeatedParameterAndBadScopeAreRefused() async throws {
        try await withFakeIdP { idp, client in
            let fragment = try await idp.authorize(
                client, FakeOIDC.authorizeFields(extra: [URLFormField(name: "response_mode", value: "fragment")]))
            expectErrorRedirect(fragment, "invalid_request", issuer: idp.issuer)
            let repeated = try await idp.authorize(
                client, FakeOIDC.authorizeFields(extra: [URLFormField(name: "nonce", value: "again")]))
            expectErrorRedirect(repeated, "invalid_request", issuer: idp.issuer)
            let badScope = try await idp.authorize(
                client, replacing(FakeOIDC.authorizeFields(), "scope", with: "openid  email"))
            expectErrorRedirect(badScope, "invalid_scope", issuer: idp.issuer)
            let requestObject = try await idp.authorize(
                client, FakeOIDC.authorizeFields(extra: [URLFormField(name: "request", value: "eyJ.x.y")]))
            expectErrorRedirect(requestObject, "request_not_supported", issuer: idp.issuer)
        }
    }

    @Test func authorizeAcceptsOnlyGetAndPost() async throws {
        try await withFakeIdP { idp, client in
            let response = try await client.send(OutboundRequest(method: "PUT", url: idp.issuer + "/authorize"))
            #expect(response.status == 405)
        }
    }

    // MARK: token: the code

    @Test func missingOrWrongVerifierIsRefusedAndBurnsTheCode() async throws {
        try await withFakeIdP { idp, client in
            let publicID = URLFormField(name: "client_id", value: FakeOIDC.publicClientID)
            let missing = try await idp.token(
                client, FakeOIDC.codeGrant(try await idp.code(client, FakeOIDC.publicAuthorizeFields())) + [publicID])
            expectTokenError(missing, status: 400, "invalid_grant")

            let code = try await idp.code(client, FakeOIDC.publicAuthorizeFields())
            let wrongVerifier = String(FakeOIDC.verifier.reversed())
            let wrong = try await idp.token(client, FakeOIDC.codeGrant(code, verifier: wrongVerifier) + [publicID])
            expectTokenError(wrong, status: 400, "invalid_grant")
            // The code was consumed by the failed attempt: the right verifier no longer helps.
            let retry = try await idp.token(client, FakeOIDC.codeGrant(code, verifier: FakeOIDC.verifier) + [publicID])
            expectTokenError(retry, status: 400, "invalid_grant")

            let malformed = try await idp.token(
                client,
                FakeOIDC.codeGrant(try await idp.code(client, FakeOIDC.publicAuthorizeFields()), verifier: "short")
                    + [publicID])
            expectTokenError(malformed, status: 400, "invalid_grant")
        }
    }

    @Test func confidentialClientCodeWithChallengeNeedsItsVerifierToo() async throws {
        try await withFakeIdP { idp, client in
            let pkce = [
                URLFormField(name: "code_challenge", value: FakeOIDC.challenge),
                URLFormField(name: "code_challenge_method", value: "S256"),
            ]
            let code = try await idp.code(client, FakeOIDC.authorizeFields(extra: pkce))
            let missing = try await idp.token(client, FakeOIDC.codeGrant(code), headers: FakeOIDC.basic())
            expectTokenError(missing, status: 400, "invalid_grant")
            let good = try await idp.code(client, FakeOIDC.authorizeFields(extra: pkce))
            let accepted = try await idp.token(
                client, FakeOIDC.codeGrant(good, verifier: FakeOIDC.verifier), headers: FakeOIDC.basic())
            #expect(accepted.status == 200)
        }
    }

    @Test func verifierForACodeIssuedWithoutChallengeIsRefused() async throws {
        try await withFakeIdP { idp, client in
            let code = try await idp.code(client)
            let response = try await idp.token(
                client, FakeOIDC.codeGrant(code, verifier: FakeOIDC.verifier), headers: FakeOIDC.basic())
            expectTokenError(response, status: 400, "invalid_grant")
        }
    }

    @Test func reusedCodeIsRefused() async throws {
        try await withFakeIdP { idp, client in
            let code = try await idp.code(client)
            let first = try await idp.token(client, FakeOIDC.codeGrant(code), headers: FakeOIDC.basic())
            #expect(first.status == 200)
            let second = try await idp.token(client, FakeOIDC.codeGrant(code), headers: FakeOIDC.basic())
            expectTokenError(second, status: 400, "invalid_grant")
            let unknown = try await idp.token(client, FakeOIDC.codeGrant("no-such-code"), headers: FakeOIDC.basic())
            expectTokenError(unknown, status: 400, "invalid_grant")
        }
    }

    @Test func expiredCodeIsRefused() async throws {
        try await withFakeIdP { idp, client in
            let fresh = try await idp.code(client)
            await idp.advanceClock(seconds: 59)
            let justInTime = try await idp.token(client, FakeOIDC.codeGrant(fresh), headers: FakeOIDC.basic())
            #expect(justInTime.status == 200)

            let code = try await idp.code(client)
            await idp.advanceClock(seconds: 61)
            let late = try await idp.token(client, FakeOIDC.codeGrant(code), headers: FakeOIDC.basic())
            expectTokenError(late, status: 400, "invalid_grant")
            #expect((late.jsonObject?["error_description"] as? String)?.contains("expired") == true)
        }
    }

    @Test func redirectURIMismatchAtTokenIsRefused() async throws {
        try await withFakeIdP { idp, client in
            let other = "http://127.0.0.1:4001/__/auth/handler"
            let mismatch = try await idp.token(
                client, FakeOIDC.codeGrant(try await idp.code(client), redirectURI: other), headers: FakeOIDC.basic())
            expectTokenError(mismatch, status: 400, "invalid_grant")
            let missing = try await idp.token(
                client, replacing(FakeOIDC.codeGrant(try await idp.code(client)), "redirect_uri", with: nil),
                headers: FakeOIDC.basic())
            expectTokenError(missing, status: 400, "invalid_request")
        }
    }

    @Test func codeIssuedToAnotherClientIsRefused() async throws {
        let configuration = FakeIdPConfiguration(oauth2Clients: [
            .init(id: FakeOIDC.clientID, secret: FakeOIDC.clientSecret), .init(id: "second", secret: "second-secret"),
        ])
        try await withFakeIdP(configuration: configuration) { idp, client in
            let code = try await idp.code(client)
            let response = try await idp.token(
                client, FakeOIDC.codeGrant(code), headers: FakeOIDC.basic("second", "second-secret"))
            expectTokenError(response, status: 400, "invalid_grant")
        }
    }

    // MARK: token: client authentication

    @Test func badClientSecretIsRefusedWith401() async throws {
        try await withFakeIdP { idp, client in
            let basic = try await idp.token(
                client, FakeOIDC.codeGrant(try await idp.code(client)),
                headers: FakeOIDC.basic(FakeOIDC.clientID, "wrong-secret"))
            expectTokenError(basic, status: 401, "invalid_client")
            #expect(basic.headers["WWW-Authenticate"]?.hasPrefix("Basic") == true)

            let post = try await idp.token(
                client,
                FakeOIDC.codeGrant(try await idp.code(client)) + [
                    URLFormField(name: "client_id", value: FakeOIDC.clientID),
                    URLFormField(name: "client_secret", value: "wrong-secret"),
                ])
            expectTokenError(post, status: 401, "invalid_client")
        }
    }

    @Test func everyOtherClientAuthenticationMistakeIsRefused() async throws {
        try await withFakeIdP { idp, client in
            let grant = FakeOIDC.codeGrant("irrelevant")
            // A confidential client that sends no secret.
            let noSecret = try await idp.token(
                client, grant + [URLFormField(name: "client_id", value: FakeOIDC.clientID)])
            expectTokenError(noSecret, status: 401, "invalid_client")
            // No client at all, an unknown client, a public client with a secret.
            expectTokenError(try await idp.token(client, grant), status: 401, "invalid_client")
            expectTokenError(
                try await idp.token(client, grant, headers: FakeOIDC.basic("nobody", "x")), status: 401,
                "invalid_client")
            expectTokenError(
                try await idp.token(client, grant, headers: FakeOIDC.basic(FakeOIDC.publicClientID, "x")), status: 401,
                "invalid_client")
            // Not Basic, or not base64.
            for header in ["Bearer abc", "Basic !!!", "Basic", "Basic " + Base64.encode(Array("no-colon".utf8))] {
                expectTokenError(
                    try await idp.token(client, grant, headers: ["Authorization": header]), status: 401,
                    "invalid_client")
            }
            // Two methods at once.
            let both = try await idp.token(
                client, grant + [URLFormField(name: "client_secret", value: FakeOIDC.clientSecret)],
                headers: FakeOIDC.basic())
            expectTokenError(both, status: 400, "invalid_request")
        }
    }

    @Test func basicCredentialsAreFormURLDecoded() async throws {
        let secret = "s3cr:t+/ ü"
        let configuration = FakeIdPConfiguration(oauth2Clients: [.init(id: FakeOIDC.clientID, secret: secret)])
        try await withFakeIdP(configuration: configuration) { idp, client in
            let response = try await idp.token(
                client, FakeOIDC.codeGrant(try await idp.code(client)),
                headers: FakeOIDC.basic(FakeOIDC.clientID, secret))
            #expect(response.status == 200, "\(response.text)")
        }
    }

    // MARK: token: the request itself

    @Test func malformedTokenRequestsAreRefused() async throws {
        try await withFakeIdP { idp, client in
            let get = try await client.get(idp.issuer + "/token")
            #expect(get.status == 405)
            let json = try await client.postJSON(idp.issuer + "/token", #"{"grant_type":"authorization_code"}"#)
            expectTokenError(json, status: 400, "invalid_request")
            let grantType = try await idp.token(
                client, [URLFormField(name: "grant_type", value: "password")], headers: FakeOIDC.basic())
            expectTokenError(grantType, status: 400, "unsupported_grant_type")
            let noGrantType = try await idp.token(client, [], headers: FakeOIDC.basic())
            expectTokenError(noGrantType, status: 400, "invalid_request")
            let noCode = try await idp.token(
                client, [URLFormField(name: "grant_type", value: "authorization_code")], headers: FakeOIDC.basic())
            expectTokenError(noCode, status: 400, "invalid_request")
            let repeated = try await idp.token(
                client, FakeOIDC.codeGrant("a") + [URLFormField(name: "code", value: "b")], headers: FakeOIDC.basic())
            expectTokenError(repeated, status: 400, "invalid_request")
        }
    }

    // MARK: userinfo

    @Test func badBearerTokenIsRefusedWith401() async throws {
        try await withFakeIdP { idp, client in
            for headers: HTTPHeaders in [
                ["Authorization": "Bearer not-a-token"], [:], ["Authorization": "Basic abc"],
                ["Authorization": "Bearer a b"], ["Authorization": "Bearer"],
            ] {
                let response = try await client.get(idp.issuer + "/userinfo", headers: headers)
                #expect(response.status == 401)
                #expect(response.headers["WWW-Authenticate"]?.contains(#"error="invalid_token""#) == true)
                #expect(response.jsonObject?["sub"] == nil)
            }
        }
    }

    @Test func expiredAccessTokenIsRefused() async throws {
        try await withFakeIdP { idp, client in
            let tokens = try await idp.confidentialTokens(client)
            let bearer: HTTPHeaders = ["Authorization": "Bearer " + (try #require(tokens["access_token"] as? String))]
            #expect(try await client.get(idp.issuer + "/userinfo", headers: bearer).status == 200)
            await idp.advanceClock(seconds: 3601)
            let expired = try await client.get(idp.issuer + "/userinfo", headers: bearer)
            #expect(expired.status == 401)
            #expect(expired.headers["WWW-Authenticate"]?.contains(#"error="invalid_token""#) == true)
        }
    }

    // MARK: never a 500

    @Test func garbageNeverCausesA500() async throws {
        try await withFakeIdP { idp, client in
            let requests = [
                OutboundRequest(method: "GET", url: idp.issuer + "/authorize"),
                OutboundRequest(method: "GET", url: idp.issuer + "/authorize?client_id=&redirect_uri=&%C3%A9=%00"),
                OutboundRequest(method: "POST", url: idp.issuer + "/authorize", body: Array("\u{0}\u{1}".utf8)),
                OutboundRequest(
                    method: "POST", url: idp.issuer + "/token",
                    headers: ["Content-Type": "application/x-www-form-urlencoded", "Authorization": "Basic ==="],
                    body: Array("grant_type=authorization_code&code=%F0%9F%98%80".utf8)),
                OutboundRequest(
                    method: "POST", url: idp.issuer + "/token",
                    headers: [
                        "Content-Type": "application/x-www-form-urlencoded",
                        "Authorization": "Basic " + Base64.encode([0xFF, 0x3A, 0xFE]),
                    ], body: Array("grant_type=refresh_token".utf8)),
                OutboundRequest(method: "DELETE", url: idp.issuer + "/jwks"),
                OutboundRequest(method: "POST", url: idp.issuer + "/.well-known/openid-configuration"),
                OutboundRequest(method: "GET", url: idp.issuer + "/userinfo", headers: ["Authorization": "Bearer ü"]),
            ]
            for request in requests {
                let response = try await client.send(request)
                #expect((400..<500).contains(response.status), "\(request.method) \(request.url): \(response.status)")
            }
        }
    }
}
