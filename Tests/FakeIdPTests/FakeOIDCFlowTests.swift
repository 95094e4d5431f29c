import AuthHandlerCore
import AuthHandlerHTTP
import Foundation
import TestSupport
import Testing

@testable import FakeIdP

/// Complete authorization code flows against a real fake IdP on loopback.
@Suite(.serialized) struct FakeOIDCFlowTests {
    @Test func discoveryDocumentListsEndpointsAndCapabilities() async throws {
        try await withFakeIdP { idp, client in
            let response = try await client.get(idp.issuer + "/.well-known/openid-configuration")
            #expect(response.status == 200)
            let document = try #require(response.jsonObject)
            #expect(document["issuer"] as? String == idp.issuer)
            #expect(document["authorization_endpoint"] as? String == idp.issuer + "/authorize")
            #expect(document["token_endpoint"] as? String == idp.issuer + "/token")
            #expect(document["userinfo_endpoint"] as? String == idp.issuer + "/userinfo")
            #expect(document["jwks_uri"] as? String == idp.issuer + "/jwks")
            #expect(document["response_types_supported"] as? [String] == ["code"])
            #expect(document["response_modes_supported"] as? [String] == ["query", "form_post"])
            #expect(document["grant_types_supported"] as? [String] == ["authorization_code", "refresh_token"])
            #expect(document["subject_types_supported"] as? [String] == ["public"])
            #expect(document["id_token_signing_alg_values_supported"] as? [String] == ["RS256"])
            #expect((document["scopes_supported"] as? [String])?.contains("openid") == true)
            #expect(
                document["token_endpoint_auth_methods_supported"] as? [String] == [
                    "client_secret_basic", "client_secret_post", "none",
                ])
            #expect(document["code_challenge_methods_supported"] as? [String] == ["S256"])
            #expect((document["claims_supported"] as? [String])?.contains("nonce") == true)
            #expect(document["authorization_response_iss_parameter_supported"] as? Bool == true)
        }
    }

    @Test func jwksPublishesTheCurrentRS256Key() async throws {
        try await withFakeIdP { idp, client in
            let keys = try await idp.jwks(client)
            #expect(keys.count == 1)
            let key = try #require(keys.first)
            #expect(key.kty == "RSA")
            #expect(key.alg == "RS256")
            #expect(key.use == "sig")
            #expect(key.kid == (await idp.state.signingKey.publicKey.keyID))
            #expect(key.n != nil && key.e != nil)
        }
    }

    @Test func confidentialClientWithBasicAuthentication() async throws {
        try await withFakeIdP { idp, client in
            let authorize = try await idp.authorize(client, FakeOIDC.authorizeFields())
            #expect(authorize.status == 302)
            let location = try #require(authorize.headers["Location"])
            #expect(location.hasPrefix(FakeOIDC.redirectURI + "?"))
            let query = authorize.locationQuery
            #expect(query.first(named: "state") == "state-123")
            #expect(query.first(named: "iss") == idp.issuer)
            let code = try #require(query.first(named: "code"))

            let response = try await idp.token(client, FakeOIDC.codeGrant(code), headers: FakeOIDC.basic())
            #expect(response.status == 200, "\(response.text)")
            #expect(response.headers["Cache-Control"] == "no-store")
            let tokens = try #require(response.jsonObject)
            #expect(tokens["token_type"] as? String == "Bearer")
            #expect(tokens["expires_in"] as? Int == 3600)
            #expect(tokens["scope"] as? String == "openid email profile")
            #expect((tokens["refresh_token"] as? String)?.isEmpty == false)
            let accessToken = try #require(tokens["access_token"] as? String)

            let idToken = try InspectedIDToken(
                try #require(tokens["id_token"] as? String), keys: try await idp.jwks(client))
            #expect(idToken.signatureVerifies)
            #expect(idToken.jws.header.alg == "RS256")
            #expect(idToken.jws.header.typ == "JWT")
            #expect(idToken.string("iss") == idp.issuer)
            #expect(idToken.string("sub") == "1001")
            #expect(idToken.string("aud") == FakeOIDC.clientID)
            #expect(idToken.string("nonce") == "nonce-456")
            #expect(idToken.string("email") == "alice@example.com")
            #expect(idToken.claims["email_verified"] as? Bool == true)
            #expect(idToken.string("name") == "Alice Example")
            let now = Int(Date().timeIntervalSince1970)
            let iat = try #require(idToken.number("iat"))
            #expect(abs(iat - now) < 60)
            #expect(idToken.number("exp") == iat + 3600)
            #expect(try #require(idToken.number("auth_time")) <= iat)

            let userInfo = try await client.get(
                idp.issuer + "/userinfo", headers: ["Authorization": "Bearer " + accessToken])
            #expect(userInfo.status == 200)
            let profile = try #require(userInfo.jsonObject)
            #expect(profile["sub"] as? String == "1001")
            #expect(profile["email"] as? String == "alice@example.com")
            #expect(profile["email_verified"] as? Bool == true)
            #expect(profile["name"] as? String == "Alice Example")
            #expect(profile["preferred_username"] as? String == "alice")
            #expect(profile["id"] as? Int == 1001)
            #expect(profile["login"] as? String == "alice")
        }
    }

    @Test func confidentialClientWithPostAuthentication() async throws {
        try await withFakeIdP { idp, client in
            let code = try await idp.code(client, FakeOIDC.authorizeFields(loginHint: "bob"))
            let response = try await idp.token(
                client,
                FakeOIDC.codeGrant(code) + [
                    URLFormField(name: "client_id", value: FakeOIDC.clientID),
                    URLFormField(name: "client_secret", value: FakeOIDC.clientSecret),
                ])
            #expect(response.status == 200, "\(response.text)")
            let tokens = try #require(response.jsonObject)
            let idToken = try InspectedIDToken(
                try #require(tokens["id_token"] as? String), keys: try await idp.jwks(client))
            #expect(idToken.signatureVerifies)
            #expect(idToken.string("sub") == "1002")
            #expect(idToken.string("email") == "bob@example.com")

            let userInfo = try await client.send(
                OutboundRequest(
                    method: "POST", url: idp.issuer + "/userinfo",
                    headers: ["Authorization": "Bearer " + (try #require(tokens["access_token"] as? String))]))
            #expect(userInfo.status == 200)
            #expect(userInfo.jsonObject?["login"] as? String == "bob")
        }
    }

    @Test func publicClientWithPKCE() async throws {
        try await withFakeIdP { idp, client in
            let code = try await idp.code(client, FakeOIDC.publicAuthorizeFields())
            let response = try await idp.token(
                client,
                FakeOIDC.codeGrant(code, verifier: FakeOIDC.verifier) + [
                    URLFormField(name: "client_id", value: FakeOIDC.publicClientID)
                ])
            #expect(response.status == 200, "\(response.text)")
            let tokens = try #require(response.jsonObject)
            let idToken = try InspectedIDToken(
                try #require(tokens["id_token"] as? String), keys: try await idp.jwks(client))
            #expect(idToken.signatureVerifies)
            #expect(idToken.string("aud") == FakeOIDC.publicClientID)
        }
    }

    @Test func scopeWithoutOpenIDGetsNoIDToken() async throws {
        try await withFakeIdP { idp, client in
            var fields = FakeOIDC.authorizeFields()
            fields.removeAll { $0.name == "scope" }
            fields.append(URLFormField(name: "scope", value: "read:user user:email"))
            let code = try await idp.code(client, fields)
            let response = try await idp.token(client, FakeOIDC.codeGrant(code), headers: FakeOIDC.basic())
            #expect(response.status == 200)
            let tokens = try #require(response.jsonObject)
            #expect(tokens["id_token"] == nil)
            #expect(tokens["scope"] as? String == "read:user user:email")
        }
    }

    @Test func formPostResponseModeAnswersAnAutoSubmittingForm() async throws {
        try await withFakeIdP { idp, client in
            let response = try await idp.authorize(
                client, FakeOIDC.authorizeFields(extra: [URLFormField(name: "response_mode", value: "form_post")]))
            #expect(response.status == 200)
            #expect(response.headers["Location"] == nil)
            #expect(response.text.contains("document.forms[0].submit()"))
            #expect(FakeOIDC.formAction(response.text) == FakeOIDC.redirectURI)
            let fields = FakeOIDC.hiddenFields(response.text)
            #expect(fields.map(\.name) == ["code", "state", "iss"])
            #expect(fields.first(named: "state") == "state-123")
            #expect(fields.first(named: "iss") == idp.issuer)
            let code = try #require(fields.first(named: "code"))
            let tokens = try await idp.token(client, FakeOIDC.codeGrant(code), headers: FakeOIDC.basic())
            #expect(tokens.status == 200)
        }
    }

    @Test func formPostDeliversErrorsToo() async throws {
        try await withFakeIdP { idp, client in
            let response = try await idp.authorize(
                client,
                FakeOIDC.authorizeFields(
                    loginHint: "deny", extra: [URLFormField(name: "response_mode", value: "form_post")]))
            #expect(response.status == 200)
            let fields = FakeOIDC.hiddenFields(response.text)
            #expect(fields.first(named: "error") == "access_denied")
            #expect(fields.first(named: "state") == "state-123")
        }
    }

    @Test func loginPageEchoesEveryParameterEscapedAndApprovesTheTypedUser() async throws {
        try await withFakeIdP { idp, client in
            let hostileState = #"<script>alert("x")</script>&'"#
            let page = try await idp.authorize(
                client, FakeOIDC.authorizeFields(state: hostileState, loginHint: nil))
            #expect(page.status == 200)
            #expect(page.headers["Content-Type"]?.hasPrefix("text/html") == true)
            #expect(!page.text.contains("<script>"))
            #expect(page.text.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;"))
            #expect(FakeOIDC.formAction(page.text) == "/oidc/authorize")
            let hidden = FakeOIDC.hiddenFields(page.text)
            #expect(hidden == FakeOIDC.authorizeFields(state: hostileState, loginHint: nil))

            let approved = try await client.postForm(
                idp.baseURL + "/oidc/authorize",
                hidden + [URLFormField(name: "user", value: "bob"), URLFormField(name: "decision", value: "approve")])
            #expect(approved.status == 303)
            #expect(approved.locationQuery.first(named: "state") == hostileState)
            #expect(approved.locationQuery.first(named: "iss") == idp.issuer)
            let code = try #require(approved.locationQuery.first(named: "code"))
            let tokens = try await idp.token(client, FakeOIDC.codeGrant(code), headers: FakeOIDC.basic())
            let idToken = try InspectedIDToken(
                try #require(tokens.jsonObject?["id_token"] as? String), keys: try await idp.jwks(client))
            #expect(idToken.string("sub") == "1002")
        }
    }

    @Test func loginPageDenyAndUnknownUser() async throws {
        try await withFakeIdP { idp, client in
            let page = try await idp.authorize(client, FakeOIDC.authorizeFields(loginHint: "nobody"))
            #expect(page.status == 200)
            let hidden = FakeOIDC.hiddenFields(page.text)
            #expect(page.text.contains(#"value="nobody""#))

            let denied = try await client.postForm(
                idp.baseURL + "/oidc/authorize",
                hidden + [URLFormField(name: "user", value: "alice"), URLFormField(name: "decision", value: "deny")])
            #expect(denied.status == 303)
            #expect(denied.locationQuery.first(named: "error") == "access_denied")
            #expect(denied.locationQuery.first(named: "state") == "state-123")
            #expect(denied.locationQuery.first(named: "code") == nil)

            let unknown = try await client.postForm(
                idp.baseURL + "/oidc/authorize",
                hidden + [
                    URLFormField(name: "user", value: "<b>mallory</b>"),
                    URLFormField(name: "decision", value: "approve"),
                ])
            #expect(unknown.status == 200)
            #expect(unknown.headers["Location"] == nil)
            #expect(unknown.text.contains("&lt;b&gt;mallory&lt;/b&gt;"))
            #expect(!unknown.text.contains("<b>mallory"))
        }
    }

    @Test func loginHintDenyDenies() async throws {
        try await withFakeIdP { idp, client in
            let response = try await idp.authorize(client, FakeOIDC.authorizeFields(loginHint: "deny"))
            #expect(response.status == 302)
            #expect(response.locationQuery.first(named: "error") == "access_denied")
            #expect(response.locationQuery.first(named: "iss") == idp.issuer)
            #expect(response.locationQuery.first(named: "state") == "state-123")
        }
    }

    @Test func autoApproveOffShowsTheLoginPage() async throws {
        try await withFakeIdP(configuration: FakeIdPConfiguration(autoApprove: false)) { idp, client in
            let response = try await idp.authorize(client, FakeOIDC.authorizeFields())
            #expect(response.status == 200)
            #expect(response.text.contains(#"id="approve""#))
            let promptNone = try await idp.authorize(
                client, FakeOIDC.authorizeFields(extra: [URLFormField(name: "prompt", value: "none")]))
            #expect(promptNone.status == 302)
            #expect(promptNone.locationQuery.first(named: "error") == "login_required")
        }
    }

    @Test func refreshTokensRotateAndOnlyNarrowScope() async throws {
        try await withFakeIdP { idp, client in
            let tokens = try await idp.confidentialTokens(client)
            let refreshToken = try #require(tokens["refresh_token"] as? String)
            let refreshFields = [
                URLFormField(name: "grant_type", value: "refresh_token"),
                URLFormField(name: "refresh_token", value: refreshToken),
            ]
            let refreshed = try await idp.token(
                client, refreshFields + [URLFormField(name: "scope", value: "openid email")], headers: FakeOIDC.basic())
            #expect(refreshed.status == 200, "\(refreshed.text)")
            let body = try #require(refreshed.jsonObject)
            #expect(body["scope"] as? String == "openid email")
            let newRefresh = try #require(body["refresh_token"] as? String)
            #expect(newRefresh != refreshToken)
            #expect(body["access_token"] as? String != tokens["access_token"] as? String)

            let replayed = try await idp.token(client, refreshFields, headers: FakeOIDC.basic())
            #expect(replayed.status == 400)
            #expect(replayed.jsonObject?["error"] as? String == "invalid_grant")

            let widened = try await idp.token(
                client,
                [
                    URLFormField(name: "grant_type", value: "refresh_token"),
                    URLFormField(name: "refresh_token", value: newRefresh),
                    URLFormField(name: "scope", value: "openid admin"),
                ], headers: FakeOIDC.basic())
            #expect(widened.status == 400)
            #expect(widened.jsonObject?["error"] as? String == "invalid_scope")
        }
    }

    @Test func postToAuthorizeWorksLikeGet() async throws {
        try await withFakeIdP { idp, client in
            let response = try await client.postForm(idp.issuer + "/authorize", FakeOIDC.authorizeFields())
            #expect(response.status == 303)
            #expect(response.locationQuery.first(named: "code") != nil)
        }
    }
}
