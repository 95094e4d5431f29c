import AuthHandlerCore
import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerProtocols
import Foundation
import TestSupport
import Testing

@testable import FakeIdP

/// The fake Identity Toolkit backend, `accounts:signInWithIdp`, over real HTTP.
struct FakeIdentityToolkitTests {
    @Test func twitterAccessTokenSignsInAndIsNewOnlyTheFirstTime() async throws {
        try await withFakeIdP { idp, client in
            let postBody = try await SignInWithIdp.twitter(idp)
            let first = try await SignInWithIdp.call(idp, client, postBody: postBody)
            #expect(first.status == 200, "\(first.text)")
            let answer = try #require(first.jsonObject)
            #expect(answer["providerId"] as? String == "twitter.com")
            #expect(answer["federatedId"] as? String == "http://twitter.com/1001")
            #expect(answer["email"] as? String == "alice@example.com")
            #expect(answer["emailVerified"] as? Bool == true)
            #expect(answer["displayName"] as? String == "Alice Example")
            #expect(answer["screenName"] as? String == "alice")
            #expect(answer["oauthAccessToken"] as? String == postBody[1].value)
            #expect(answer["oauthTokenSecret"] as? String == postBody[2].value)
            #expect(answer["isNewUser"] as? Bool == true)
            #expect(answer["expiresIn"] as? String == "3600")
            #expect((answer["refreshToken"] as? String)?.isEmpty == false)
            #expect(answer["needConfirmation"] == nil)
            let rawUserInfo = try #require((answer["rawUserInfo"] as? String)?.data(using: .utf8))
            let profile = try #require(try JSONSerialization.jsonObject(with: rawUserInfo) as? [String: Any])
            #expect(profile["screen_name"] as? String == "alice")
            #expect(profile["id_str"] as? String == "1001")

            let localID = try #require(answer["localId"] as? String)
            let claims = try SignInWithIdp.verifiedClaims(
                try #require(answer["idToken"] as? String), key: await idp.state.signingKey)
            #expect(claims["iss"] as? String == "https://securetoken.google.com/fake-project")
            #expect(claims["aud"] as? String == "fake-project")
            #expect(claims["sub"] as? String == localID)
            #expect((claims["firebase"] as? [String: Any])?["sign_in_provider"] as? String == "twitter.com")

            let second = try await SignInWithIdp.call(idp, client, postBody: postBody)
            #expect(second.status == 200, "\(second.text)")
            #expect(second.jsonObject?["isNewUser"] as? Bool == false)
            #expect(second.jsonObject?["localId"] as? String == localID)
        }
    }

    @Test func oidcIDTokenSignsIn() async throws {
        try await withFakeIdP { idp, client in
            let idToken = try await SignInWithIdp.idToken(idp, userID: "1002")
            let response = try await SignInWithIdp.call(idp, client, postBody: SignInWithIdp.oidc(idToken))
            #expect(response.status == 200, "\(response.text)")
            let answer = try #require(response.jsonObject)
            #expect(answer["providerId"] as? String == "google.com")
            #expect(answer["federatedId"] as? String == "https://accounts.google.com/1002")
            #expect(answer["oauthIdToken"] as? String == idToken)
            #expect(answer["email"] as? String == "user1002@example.com")
            #expect(answer["isNewUser"] as? Bool == true)
            #expect(answer["idToken"] is String)
            #expect((answer["rawUserInfo"] as? String)?.contains(#""sub":"1002""#) == true)
        }
    }

    @Test func oidcIDTokenWithTheRawNonceOfItsNonceClaimSignsIn() async throws {
        try await withFakeIdP { idp, client in
            let idToken = try await SignInWithIdp.idToken(idp)
            let postBody = SignInWithIdp.oidc(idToken, providerID: "oidc.corp", nonce: SignInWithIdp.rawNonce)
            let response = try await SignInWithIdp.call(idp, client, postBody: postBody)
            #expect(response.status == 200, "\(response.text)")
            #expect(response.jsonObject?["federatedId"] as? String == "1001")
        }
    }

    /// Firebase's rule (`OAuthCredentialOptions.rawNonce`): the SHA-256 of the raw nonce must be the token's `nonce`.
    /// The claim's own value (what an equality check would take), another value, or none at all is refused.
    @Test(arguments: [SignInWithIdp.hashedNonce, "another-nonce", nil])
    func oidcIDTokenWithoutTheRawNonceOfItsNonceClaimIsRefused(nonce: String?) async throws {
        try await withFakeIdP { idp, client in
            let idToken = try await SignInWithIdp.idToken(idp)
            let response = try await SignInWithIdp.call(
                idp, client, postBody: SignInWithIdp.oidc(idToken, providerID: "apple.com", nonce: nonce))
            #expect(response.status == 400)
            #expect(
                response.identityToolkitMessage?.hasPrefix("MISSING_OR_INVALID_NONCE") == true, "\(response.text)")
        }
    }

    @Test func oidcIDTokenWithoutANonceClaimNeedsNoNonce() async throws {
        try await withFakeIdP { idp, client in
            let now = Int(await idp.state.now().timeIntervalSince1970)
            let claims: [String: Any] = [
                "iss": idp.issuer, "sub": "1001", "aud": "fake-client-id", "iat": now, "exp": now + 3600,
            ]
            let idToken = try SignInWithIdp.sign(claims, key: await idp.state.signingKey)
            let response = try await SignInWithIdp.call(idp, client, postBody: SignInWithIdp.oidc(idToken, nonce: nil))
            #expect(response.status == 200, "\(response.text)")
        }
    }

    @Test func oauth2AccessTokenSignsIn() async throws {
        try await withFakeIdP { idp, client in
            let postBody = try await SignInWithIdp.oauth2(idp, userID: "1002")
            let response = try await SignInWithIdp.call(idp, client, postBody: postBody)
            #expect(response.status == 200, "\(response.text)")
            let answer = try #require(response.jsonObject)
            #expect(answer["providerId"] as? String == "github.com")
            #expect(answer["email"] as? String == "bob@example.com")
            #expect(answer["oauthAccessToken"] as? String == postBody[1].value)
            #expect(answer["oauthTokenSecret"] == nil)
        }
    }

    @Test func withoutReturnSecureTokenThereIsNoIDToken() async throws {
        try await withFakeIdP { idp, client in
            let response = try await SignInWithIdp.call(
                idp, client, postBody: try await SignInWithIdp.twitter(idp), extra: ["returnSecureToken": false])
            #expect(response.status == 200, "\(response.text)")
            #expect(response.jsonObject?["localId"] is String)
            #expect(response.jsonObject?["idToken"] == nil)
            #expect(response.jsonObject?["refreshToken"] == nil)
        }
    }

    @Test func conflictUserNeedsConfirmation() async throws {
        try await withFakeIdP { idp, client in
            let postBody = try await SignInWithIdp.twitter(idp, userID: "1003")
            let response = try await SignInWithIdp.call(idp, client, postBody: postBody)
            #expect(response.status == 200, "\(response.text)")
            let answer = try #require(response.jsonObject)
            #expect(answer["needConfirmation"] as? Bool == true)
            #expect(answer["email"] as? String == "conflict@example.com")
            #expect(answer["providerId"] as? String == "twitter.com")
            #expect(answer["federatedId"] as? String == "http://twitter.com/1003")
            #expect(answer["oauthAccessToken"] as? String == postBody[1].value)
            #expect(answer["oauthTokenSecret"] as? String == postBody[2].value)
            #expect(answer["idToken"] == nil)
            #expect(answer["refreshToken"] == nil)
        }
    }

    @Test func mfaUserNeedsASecondFactor() async throws {
        try await withFakeIdP { idp, client in
            let response = try await SignInWithIdp.call(
                idp, client, postBody: try await SignInWithIdp.oauth2(idp, userID: "1004"))
            #expect(response.status == 200, "\(response.text)")
            let answer = try #require(response.jsonObject)
            #expect((answer["mfaPendingCredential"] as? String)?.isEmpty == false)
            let info = try #require((answer["mfaInfo"] as? [[String: Any]])?.first)
            #expect(info["phoneInfo"] as? String == "+*******1234")
            #expect(info["mfaEnrollmentId"] is String)
            #expect(info["displayName"] is String)
            #expect(info["enrolledAt"] is String)
            #expect(answer["idToken"] == nil)
            #expect(answer["oauthAccessToken"] == nil)
        }
    }

    @Test func linkingAddsTheCredentialToTheSignedInAccount() async throws {
        try await withFakeIdP { idp, client in
            let signIn = try await SignInWithIdp.call(idp, client, postBody: try await SignInWithIdp.twitter(idp))
            let localID = try #require(signIn.jsonObject?["localId"] as? String)
            let idToken = try #require(signIn.jsonObject?["idToken"] as? String)

            let link = try await SignInWithIdp.call(
                idp, client, postBody: try await SignInWithIdp.oauth2(idp, userID: "1002"),
                extra: ["idToken": idToken])
            #expect(link.status == 200, "\(link.text)")
            #expect(link.jsonObject?["localId"] as? String == localID)
            #expect(link.jsonObject?["isNewUser"] as? Bool == false)

            // The linked credential now signs in to the same account.
            let again = try await SignInWithIdp.call(
                idp, client, postBody: try await SignInWithIdp.oauth2(idp, userID: "1002"))
            #expect(again.jsonObject?["localId"] as? String == localID)
        }
    }

    @Test func linkingACredentialOfAnotherAccountIsRefused() async throws {
        try await withFakeIdP { idp, client in
            let alice = try await SignInWithIdp.twitter(idp, userID: "1001")
            let aliceSignIn = try await SignInWithIdp.call(idp, client, postBody: alice)
            #expect(aliceSignIn.status == 200)
            let bobSignIn = try await SignInWithIdp.call(
                idp, client, postBody: try await SignInWithIdp.twitter(idp, userID: "1002"))
            let bobToken = try #require(bobSignIn.jsonObject?["idToken"] as? String)

            let refused = try await SignInWithIdp.call(idp, client, postBody: alice, extra: ["idToken": bobToken])
            #expect(refused.status == 400)
            #expect(refused.identityToolkitMessage == "FEDERATED_USER_ID_ALREADY_LINKED")

            // With returnIdpCredential Identity Toolkit answers 200 with errorMessage and the credential.
            let withCredential = try await SignInWithIdp.call(
                idp, client, postBody: alice, extra: ["idToken": bobToken, "returnIdpCredential": true])
            #expect(withCredential.status == 200, "\(withCredential.text)")
            #expect(withCredential.jsonObject?["errorMessage"] as? String == "FEDERATED_USER_ID_ALREADY_LINKED")
            #expect(withCredential.jsonObject?["oauthAccessToken"] as? String == alice[1].value)
            #expect(withCredential.jsonObject?["idToken"] == nil)
        }
    }

    @Test func linkingWithAnIDTokenTheBackendDidNotIssueIsRefused() async throws {
        try await withFakeIdP { idp, client in
            let postBody = try await SignInWithIdp.twitter(idp)
            let otherKey = try SigningKey.generate(.rs256, keyID: "fake-key-1")
            let now = Int(await idp.state.now().timeIntervalSince1970)
            let firebaseClaims: [String: Any] = [
                "iss": "https://securetoken.google.com/fake-project", "aud": "fake-project", "sub": "uid-1",
                "iat": now, "exp": now + 3600,
            ]
            var wrongAudience = firebaseClaims
            wrongAudience["aud"] = "other-project"
            let refusedTokens = [
                "not-a-jwt",
                try await SignInWithIdp.idToken(idp),  // the IdP's own ID token: wrong iss
                try SignInWithIdp.sign(firebaseClaims, key: otherKey),  // forged: right claims, wrong key
                try SignInWithIdp.sign(wrongAudience, key: await idp.state.signingKey),
            ]
            for token in refusedTokens {
                let response = try await SignInWithIdp.call(idp, client, postBody: postBody, extra: ["idToken": token])
                #expect(response.status == 400)
                #expect(response.identityToolkitMessage?.hasPrefix("INVALID_ID_TOKEN") == true, "\(response.text)")
            }
            let valid = try SignInWithIdp.sign(firebaseClaims, key: await idp.state.signingKey)
            await idp.advanceClock(seconds: 3601)
            let expired = try await SignInWithIdp.call(idp, client, postBody: postBody, extra: ["idToken": valid])
            #expect(expired.status == 400)
            #expect(expired.identityToolkitMessage == "TOKEN_EXPIRED")
        }
    }

    @Test func aMissingOrWrongAPIKeyIsRefusedWithIdentityToolkitsBody() async throws {
        var configuration = FakeIdPConfiguration()
        configuration.backendAPIKey = "the-right-key"
        try await withFakeIdP(configuration: configuration) { idp, client in
            for key in [nil, "", "the-wrong-key"] as [String?] {
                let response = try await SignInWithIdp.call(
                    idp, client, postBody: try await SignInWithIdp.twitter(idp), key: key)
                #expect(response.status == 400)
                let error = try #require(response.jsonObject?["error"] as? [String: Any])
                #expect(error["code"] as? Int == 400)
                #expect(error["message"] as? String == "API key not valid. Please pass a valid API key.")
                #expect(error["status"] as? String == "INVALID_ARGUMENT")
                let detail = try #require((error["errors"] as? [[String: Any]])?.first)
                #expect(detail["domain"] as? String == "global")
                #expect(detail["reason"] as? String == "badRequest")
                #expect(detail["message"] as? String == error["message"] as? String)
            }
            let accepted = try await SignInWithIdp.call(
                idp, client, postBody: try await SignInWithIdp.twitter(idp), key: "the-right-key")
            #expect(accepted.status == 200, "\(accepted.text)")
        }
    }

    @Test func anyNonEmptyKeyIsAcceptedWhenNoneIsConfigured() async throws {
        try await withFakeIdP { idp, client in
            let empty = try await SignInWithIdp.call(
                idp, client, postBody: try await SignInWithIdp.twitter(idp), key: "")
            #expect(empty.status == 400)
            let any = try await SignInWithIdp.call(
                idp, client, postBody: try await SignInWithIdp.twitter(idp), key: "whatever")
            #expect(any.status == 200)
        }
    }

    @Test func forgedOrStaleCredentialsAreRefused() async throws {
        try await withFakeIdP { idp, client in
            let otherKey = try SigningKey.generate(.rs256, keyID: "fake-key-1")
            var twitter = try await SignInWithIdp.twitter(idp)
            twitter[2].value = "not-the-secret"
            let idTokens = [
                try await SignInWithIdp.idToken(idp, key: otherKey),
                try await SignInWithIdp.idToken(idp, changes: ["iss": "http://127.0.0.1:1/oidc"]),
                try await SignInWithIdp.idToken(idp, changes: ["aud": "not-a-client"]),
                try await SignInWithIdp.idToken(idp, changes: ["exp": 1_000_000_000]),
                try CompactJWS.unsigned(payload: Data(#"{"iss":"x","sub":"1001"}"#.utf8)),
            ]
            let refused: [[URLFormField]] =
                [
                    twitter,
                    [
                        URLFormField(name: "providerId", value: "twitter.com"),
                        URLFormField(name: "access_token", value: "1001-made-up"),
                        URLFormField(name: "oauth_token_secret", value: "made-up"),
                    ],
                    [
                        URLFormField(name: "providerId", value: "facebook.com"),
                        URLFormField(name: "access_token", value: "made-up"),
                    ],
                ] + idTokens.map { SignInWithIdp.oidc($0) }
            for postBody in refused {
                let response = try await SignInWithIdp.call(idp, client, postBody: postBody)
                #expect(response.status == 400)
                #expect(
                    response.identityToolkitMessage?.hasPrefix("INVALID_IDP_RESPONSE : ") == true, "\(response.text)")
            }
            let wrongNonce = SignInWithIdp.oidc(try await SignInWithIdp.idToken(idp), nonce: "another-nonce")
            let response = try await SignInWithIdp.call(idp, client, postBody: wrongNonce)
            #expect(response.identityToolkitMessage?.hasPrefix("MISSING_OR_INVALID_NONCE") == true)
        }
    }

    @Test func anOAuth2AccessTokenStopsWorkingWhenItExpires() async throws {
        try await withFakeIdP { idp, client in
            let postBody = try await SignInWithIdp.oauth2(idp)
            await idp.advanceClock(seconds: 3601)
            let response = try await SignInWithIdp.call(idp, client, postBody: postBody)
            #expect(response.status == 400)
            #expect(response.identityToolkitMessage?.hasPrefix("INVALID_IDP_RESPONSE") == true)
        }
    }

    @Test func theRequestShapeIsChecked() async throws {
        try await withFakeIdP { idp, client in
            let twitter = try await SignInWithIdp.twitter(idp)
            let cases: [(extra: [String: Any], postBody: [URLFormField], expected: String)] = [
                (["requestUri": ""], twitter, "MISSING_REQUEST_URI"),
                (["requestUri": "ftp://example.com/x"], twitter, "INVALID_REQUEST_URI"),
                (["postBody": ""], twitter, "INVALID_CREDENTIAL_OR_PROVIDER_ID"),
                ([:], Array(twitter.dropFirst()), "INVALID_CREDENTIAL_OR_PROVIDER_ID"),
                ([:], [URLFormField(name: "providerId", value: "twitter.com")], "INVALID_CREDENTIAL_OR_PROVIDER_ID"),
                ([:], [URLFormField(name: "providerId", value: "myspace.com")], "INVALID_PROVIDER_ID"),
                (["returnSecureToken": "yes"], twitter, "Invalid JSON payload received."),
            ]
            for (extra, postBody, expected) in cases {
                let response = try await SignInWithIdp.call(idp, client, postBody: postBody, extra: extra)
                #expect(response.status == 400)
                #expect(response.identityToolkitMessage?.hasPrefix(expected) == true, "\(expected): \(response.text)")
            }
            let notJSON = try await client.postJSON(SignInWithIdp.url(idp), "requestUri=x")
            #expect(notJSON.status == 400)
            #expect((notJSON.jsonObject?["error"] as? [String: Any])?["status"] as? String == "INVALID_ARGUMENT")
            let get = try await client.get(SignInWithIdp.url(idp))
            #expect(get.status == 405)
        }
    }

    @Test func aQueuedOAuthErrorIsAnsweredAsAnIdentityToolkitError() async throws {
        try await withFakeIdP { idp, client in
            await idp.queue(
                FakeFailure(endpoint: .signInWithIdp, kind: .oauthError(code: "USER_DISABLED", description: nil)))
            let refused = try await SignInWithIdp.call(idp, client, postBody: try await SignInWithIdp.twitter(idp))
            #expect(refused.status == 400)
            let error = try #require(refused.jsonObject?["error"] as? [String: Any])
            #expect(error["message"] as? String == "USER_DISABLED")
            #expect((error["errors"] as? [[String: Any]])?.first?["reason"] as? String == "invalid")

            await idp.queue(
                FakeFailure(
                    endpoint: .signInWithIdp, kind: .oauthError(code: "EMAIL_EXISTS", description: "taken")))
            let withDetail = try await SignInWithIdp.call(
                idp, client, postBody: try await SignInWithIdp.twitter(idp))
            #expect(withDetail.identityToolkitMessage == "EMAIL_EXISTS : taken")

            let normal = try await SignInWithIdp.call(idp, client, postBody: try await SignInWithIdp.twitter(idp))
            #expect(normal.status == 200)
        }
    }

    @Test func accountsAreSeparatePerTenant() async throws {
        try await withFakeIdP { idp, client in
            let postBody = try await SignInWithIdp.twitter(idp)
            let plain = try await SignInWithIdp.call(idp, client, postBody: postBody)
            let tenant = try await SignInWithIdp.call(idp, client, postBody: postBody, extra: ["tenantId": "t-1"])
            #expect(tenant.status == 200)
            #expect(tenant.jsonObject?["tenantId"] as? String == "t-1")
            #expect(tenant.jsonObject?["isNewUser"] as? Bool == true)
            #expect(tenant.jsonObject?["localId"] as? String != plain.jsonObject?["localId"] as? String)
            let claims = try SignInWithIdp.verifiedClaims(
                try #require(tenant.jsonObject?["idToken"] as? String), key: await idp.state.signingKey)
            #expect((claims["firebase"] as? [String: Any])?["tenant"] as? String == "t-1")
        }
    }
}
