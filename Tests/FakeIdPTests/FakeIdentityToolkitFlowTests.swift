import AuthHandlerCore
import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerProtocols
import AuthHandlerSystem
import Foundation
import TestSupport
import Testing

@testable import FakeIdP

/// The backend accepts credentials obtained through the fake IdP's own OAuth 1.0a and OIDC flows over HTTP.
struct FakeIdentityToolkitFlowTests {
    private let redirectURI = "http://127.0.0.1:9/__/auth/handler"

    @Test func twitterCredentialFromTheOAuth1FlowSignsIn() async throws {
        try await withFakeIdP { idp, client in
            let signer = OAuth1Signer(consumerKey: "fake-consumer-key", consumerSecret: "fake-consumer-secret")
            let requestTokenURL = idp.baseURL + "/oauth1/request_token"
            let requestHeader = try signer.authorizationHeader(
                method: "POST", url: requestTokenURL, callback: redirectURI)
            let requestToken = try await client.send(
                OutboundRequest(method: "POST", url: requestTokenURL, headers: ["Authorization": requestHeader.value]))
            #expect(requestToken.status == 200, "\(requestToken.text)")
            let temporary = try #require(requestToken.formFields.last { $0.name == "oauth_token" }?.value)
            let temporarySecret = try #require(requestToken.formFields.last { $0.name == "oauth_token_secret" }?.value)

            let authorize = try await client.get(
                idp.baseURL + "/oauth1/authorize?oauth_token=\(FormURLEncoding.percentEncode(temporary))"
                    + "&screen_name=alice")
            #expect(authorize.status == 302, "\(authorize.text)")
            let verifier = try #require(authorize.locationQuery.last { $0.name == "oauth_verifier" }?.value)

            let accessTokenURL = idp.baseURL + "/oauth1/access_token"
            let accessHeader = try signer.authorizationHeader(
                method: "POST", url: accessTokenURL, token: temporary, tokenSecret: temporarySecret,
                verifier: verifier)
            let access = try await client.send(
                OutboundRequest(method: "POST", url: accessTokenURL, headers: ["Authorization": accessHeader.value]))
            #expect(access.status == 200, "\(access.text)")
            let token = try #require(access.formFields.last { $0.name == "oauth_token" }?.value)
            let secret = try #require(access.formFields.last { $0.name == "oauth_token_secret" }?.value)

            let postBody = [
                URLFormField(name: "providerId", value: "twitter.com"),
                URLFormField(name: "access_token", value: token),
                URLFormField(name: "oauth_token_secret", value: secret),
            ]
            let signIn = try await SignInWithIdp.call(idp, client, postBody: postBody)
            #expect(signIn.status == 200, "\(signIn.text)")
            #expect(signIn.jsonObject?["federatedId"] as? String == "http://twitter.com/1001")
            #expect(signIn.jsonObject?["isNewUser"] as? Bool == true)
        }
    }

    @Test func idTokenAndAccessTokenFromTheOIDCFlowSignIn() async throws {
        try await withFakeIdP { idp, client in
            let verifier = try PKCE.makeVerifier()
            let query = FormURLEncoding.encode([
                URLFormField(name: "response_type", value: "code"),
                URLFormField(name: "client_id", value: "fake-client-id"),
                URLFormField(name: "redirect_uri", value: redirectURI),
                URLFormField(name: "scope", value: "openid email profile"),
                URLFormField(name: "state", value: "state-1"),
                URLFormField(name: "nonce", value: SignInWithIdp.hashedNonce),
                URLFormField(name: "code_challenge", value: try PKCE.challenge(forVerifier: verifier)),
                URLFormField(name: "code_challenge_method", value: "S256"),
                URLFormField(name: "login_hint", value: "bob"),
            ])
            let authorize = try await client.get(idp.issuer + "/authorize?" + query)
            #expect(authorize.status == 302, "\(authorize.text)")
            let code = try #require(authorize.locationQuery.last { $0.name == "code" }?.value)

            let basic = Base64.encode(Array("fake-client-id:fake-client-secret".utf8))
            let tokens = try await client.postForm(
                idp.issuer + "/token",
                [
                    URLFormField(name: "grant_type", value: "authorization_code"),
                    URLFormField(name: "code", value: code),
                    URLFormField(name: "redirect_uri", value: redirectURI),
                    URLFormField(name: "code_verifier", value: verifier),
                ],
                headers: ["Authorization": "Basic \(basic)"])
            #expect(tokens.status == 200, "\(tokens.text)")
            let idToken = try #require(tokens.jsonObject?["id_token"] as? String)
            let accessToken = try #require(tokens.jsonObject?["access_token"] as? String)

            let withIDToken = try await SignInWithIdp.call(
                idp, client,
                postBody: SignInWithIdp.oidc(idToken, nonce: SignInWithIdp.rawNonce))
            #expect(withIDToken.status == 200, "\(withIDToken.text)")
            #expect(withIDToken.jsonObject?["email"] as? String == "bob@example.com")
            #expect(withIDToken.jsonObject?["oauthIdToken"] as? String == idToken)

            let withAccessToken = try await SignInWithIdp.call(
                idp, client,
                postBody: [
                    URLFormField(name: "providerId", value: "oauth2.forge"),
                    URLFormField(name: "access_token", value: accessToken),
                ])
            #expect(withAccessToken.status == 200, "\(withAccessToken.text)")
            #expect(withAccessToken.jsonObject?["email"] as? String == "bob@example.com")
        }
    }
}
