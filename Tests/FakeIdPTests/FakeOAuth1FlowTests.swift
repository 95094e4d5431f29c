import AuthHandlerCore
import AuthHandlerHTTP
import AuthHandlerProtocols
import Foundation
import TestSupport
import Testing

@testable import FakeIdP

/// The whole OAuth 1.0a flow on a real fake IdP: request_token → authorize → access_token → verify_credentials.
struct FakeOAuth1FlowTests {
    @Test(arguments: OAuth1SignatureMethod.allCases)
    func fullFlowPassesForEachSignatureMethod(_ method: OAuth1SignatureMethod) async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http, method: method)
            let requestToken = try await client.requestToken()

            let authorized = try await client.authorize(requestToken.token, screenName: "alice")
            #expect(authorized.status == 302)
            let location = try #require(authorized.headers["Location"])
            #expect(location.hasPrefix(FakeOAuth1TestClient.callback + "?"))
            #expect(authorized.locationQuery.first(named: "oauth_token") == requestToken.token)
            let verifier = try #require(authorized.locationQuery.first(named: "oauth_verifier"))

            var approved = requestToken
            approved.verifier = verifier
            let exchanged = try await client.accessTokenResponse(approved, verifier: verifier)
            #expect(exchanged.status == 200, "\(exchanged.text)")
            #expect(exchanged.headers["Content-Type"] == "application/x-www-form-urlencoded")
            let fields = exchanged.formFields
            #expect(fields.first(named: "user_id") == "1001")
            #expect(fields.first(named: "screen_name") == "alice")
            let access = FakeOAuth1Credentials(
                token: try #require(fields.first(named: "oauth_token")),
                secret: try #require(fields.first(named: "oauth_token_secret")))

            let profile = try await client.verifyCredentialsResponse(
                access,
                query: [
                    URLFormField(name: "include_email", value: "true"),
                    URLFormField(name: "skip_status", value: "true"),
                ])
            #expect(profile.status == 200, "\(profile.text)")
            let json = try #require(profile.jsonObject)
            #expect((json["id"] as? NSNumber)?.int64Value == 1001)
            #expect(json["id_str"] as? String == "1001")
            #expect(json["screen_name"] as? String == "alice")
            #expect(json["name"] as? String == "Alice Example")
            #expect(json["email"] as? String == "alice@example.com")
        }
    }

    @Test func authenticateIsTheSameEndpointAsAuthorize() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            let requestToken = try await client.requestToken()
            let response = try await client.authorize(requestToken.token, screenName: "bob", path: "authenticate")
            #expect(response.status == 302)
            #expect(response.locationQuery.first(named: "oauth_verifier") != nil)
            var approved = requestToken
            approved.verifier = try #require(response.locationQuery.first(named: "oauth_verifier"))
            let exchanged = try await client.accessTokenResponse(approved, verifier: approved.verifier)
            #expect(exchanged.formFields.first(named: "screen_name") == "bob")
            #expect(exchanged.formFields.first(named: "user_id") == "1002")
        }
    }

    @Test func verifyCredentialsLeavesOutTheEmailUnlessAsked() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            let access = try await client.accessToken(as: "bob")
            let plain = try await client.verifyCredentialsResponse(access)
            #expect(plain.status == 200)
            let json = try #require(plain.jsonObject)
            #expect(json["screen_name"] as? String == "bob")
            #expect(json["email"] == nil)
            let declined = try await client.verifyCredentialsResponse(
                access, query: [URLFormField(name: "include_email", value: "false")])
            #expect(declined.status == 200)
            #expect(declined.jsonObject?["email"] == nil)
        }
    }

    @Test func outOfBandCallbackShowsTheVerifierAsAPIN() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            var requestToken = try await client.requestToken(callback: "oob")
            let page = try await client.authorize(requestToken.token, screenName: "alice")
            #expect(page.status == 200)
            #expect(page.headers["Location"] == nil)
            let text = page.text
            let start = try #require(text.range(of: "<code id=\"oauth_verifier\">"))
            let end = try #require(text.range(of: "</code>", range: start.upperBound..<text.endIndex))
            requestToken.verifier = String(text[start.upperBound..<end.lowerBound])
            let exchanged = try await client.accessTokenResponse(requestToken, verifier: requestToken.verifier)
            #expect(exchanged.status == 200, "\(exchanged.text)")
        }
    }

    @Test func callbackWithAQueryKeepsItAndAddsTheTokenAndVerifier() async throws {
        let callback = "http://127.0.0.1:4000/cb?app=1#top"
        try await withFakeIdP(configuration: FakeIdPConfiguration(redirectURIs: [callback])) { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            let requestToken = try await client.requestToken(callback: callback)
            let response = try await client.authorize(requestToken.token, screenName: "alice")
            let location = try #require(response.headers["Location"])
            #expect(location.hasPrefix("http://127.0.0.1:4000/cb?app=1&oauth_token="))
            #expect(location.contains("&oauth_verifier="))
            #expect(location.hasSuffix("#top"))
        }
    }

    @Test func nonNumericUserIDsGetAStableNumericTwitterID() {
        let user = FakeUser(name: "carol", id: "carol", email: "carol@example.com", displayName: "Carol")
        let id = FakeIdPRouter.twitterID(of: user)
        #expect(UInt64(id) != nil)
        #expect(id == FakeIdPRouter.twitterID(of: user))
        #expect(FakeIdPRouter.twitterID(of: FakeUser.defaults[0]) == "1001")
    }
}
