import AuthHandlerCore
import AuthHandlerHTTP
import Foundation
import TestSupport
import Testing

@testable import FakeIdP

/// `GET|POST /oauth1/authorize` (and `authenticate`): auto-approve, denial, the login page and its form.
struct FakeOAuth1AuthorizeTests {
    @Test func screenNameDenyRedirectsWithDeniedAndRemovesTheToken() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            let requestToken = try await client.requestToken()
            let response = try await client.authorize(requestToken.token, screenName: "deny")
            #expect(response.status == 302)
            #expect(response.headers["Location"]?.hasPrefix(FakeOAuth1TestClient.callback + "?denied=") == true)
            #expect(response.locationQuery.first(named: "denied") == requestToken.token)
            #expect(response.locationQuery.first(named: "oauth_verifier") == nil)

            let again = try await client.authorize(requestToken.token, screenName: "alice")
            #expect(again.isRefusal(401, check: "request-token"), "\(again.status) \(again.text)")
            let exchanged = try await client.accessTokenResponse(requestToken, verifier: "anything")
            #expect(exchanged.isRefusal(401, check: "request-token"), "\(exchanged.status) \(exchanged.text)")
        }
    }

    @Test func unknownTokenIsRefusedAndMissingTokenIsMalformed() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            let unknown = try await client.authorize("made-up", screenName: "alice")
            #expect(unknown.isRefusal(401, check: "request-token"), "\(unknown.status) \(unknown.text)")
            let missing = try await http.get(client.url("authorize") + "?screen_name=alice")
            #expect(missing.isRefusal(400, check: "token"), "\(missing.status) \(missing.text)")
        }
    }

    @Test func anAuthorizedTokenCannotBeAuthorizedAgain() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            let approved = try await client.approvedRequestToken()
            let again = try await client.authorize(approved.token, screenName: "bob")
            #expect(again.isRefusal(401, check: "request-token"), "\(again.status) \(again.text)")
        }
    }

    @Test(arguments: ["authorize", "authenticate"])
    func loginPageIsRenderedWithEverythingEscaped(_ path: String) async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            let requestToken = try await client.requestToken()
            let response = try await client.authorize(
                requestToken.token, screenName: "<script>alert(\"x\")</script>", path: path)
            #expect(response.status == 200)
            #expect(response.headers["Content-Type"]?.hasPrefix("text/html") == true)
            let html = response.text
            #expect(html.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"))
            #expect(!html.contains("<script>"))
            #expect(html.contains("action=\"/oauth1/\(path)\""))
            #expect(html.contains("name=\"oauth_token\" value=\"\(requestToken.token)\""))
            #expect(html.contains("name=\"decision\" value=\"approve\""))
            #expect(html.contains("name=\"decision\" value=\"deny\""))
        }
    }

    @Test func withoutAutoApproveEvenAKnownScreenNameGetsTheLoginPage() async throws {
        try await withFakeIdP(configuration: FakeIdPConfiguration(autoApprove: false)) { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            let requestToken = try await client.requestToken()
            let response = try await client.authorize(requestToken.token, screenName: "alice")
            #expect(response.status == 200)
            #expect(response.text.contains("value=\"alice\""))
            let denyName = try await client.authorize(requestToken.token, screenName: "deny")
            #expect(denyName.status == 200)
        }
    }

    @Test func noScreenNameGetsTheLoginPage() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            let requestToken = try await client.requestToken()
            let response = try await client.authorize(requestToken.token, screenName: nil)
            #expect(response.status == 200)
            #expect(response.text.contains("<form method=\"post\""))
        }
    }

    @Test func loginFormApproveRedirectsWithAVerifierForTheTypedUser() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            var requestToken = try await client.requestToken()
            let response = try await http.postForm(
                client.url("authorize"),
                [
                    URLFormField(name: "oauth_token", value: requestToken.token),
                    URLFormField(name: "user", value: "bob"), URLFormField(name: "decision", value: "approve"),
                ])
            #expect(response.status == 303)
            #expect(response.locationQuery.first(named: "oauth_token") == requestToken.token)
            requestToken.verifier = try #require(response.locationQuery.first(named: "oauth_verifier"))
            let exchanged = try await client.accessTokenResponse(requestToken, verifier: requestToken.verifier)
            #expect(exchanged.status == 200, "\(exchanged.text)")
            #expect(exchanged.formFields.first(named: "screen_name") == "bob")
        }
    }

    @Test func loginFormDenyRedirectsWithDenied() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            let requestToken = try await client.requestToken()
            let response = try await http.postForm(
                client.url("authenticate"),
                [
                    URLFormField(name: "oauth_token", value: requestToken.token),
                    URLFormField(name: "user", value: "alice"), URLFormField(name: "decision", value: "deny"),
                ])
            #expect(response.status == 303)
            #expect(response.locationQuery.first(named: "denied") == requestToken.token)
            #expect(response.locationQuery.first(named: "oauth_verifier") == nil)
        }
    }

    @Test func loginFormWithAnUnknownUserShowsThePageAgainWithAnEscapedError() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            let requestToken = try await client.requestToken()
            let fields = [
                URLFormField(name: "oauth_token", value: requestToken.token),
                URLFormField(name: "user", value: "<b>mallory"), URLFormField(name: "decision", value: "approve"),
            ]
            let response = try await http.postForm(client.url("authorize"), fields)
            #expect(response.status == 401)
            #expect(response.headers["Location"] == nil)
            let html = response.text
            #expect(html.contains("id=\"error\""))
            #expect(html.contains("&lt;b&gt;mallory"))
            #expect(!html.contains("<b>mallory"))
            #expect(html.contains("name=\"oauth_token\" value=\"\(requestToken.token)\""))

            // The token stays usable: the user can correct the name.
            let corrected = try await http.postForm(
                client.url("authorize"),
                [
                    URLFormField(name: "oauth_token", value: requestToken.token),
                    URLFormField(name: "user", value: "alice"), URLFormField(name: "decision", value: "approve"),
                ])
            #expect(corrected.status == 303)
        }
    }

    @Test func loginFormWithoutADecisionIsMalformed() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            let requestToken = try await client.requestToken()
            let response = try await http.postForm(
                client.url("authorize"),
                [
                    URLFormField(name: "oauth_token", value: requestToken.token),
                    URLFormField(name: "user", value: "bob"),
                ])
            #expect(response.isRefusal(400, check: "decision"), "\(response.status) \(response.text)")
        }
    }

    @Test func outOfBandDenialShowsAPage() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            let requestToken = try await client.requestToken(callback: "oob")
            let response = try await client.authorize(requestToken.token, screenName: "deny")
            #expect(response.status == 200)
            #expect(response.text.contains("denied"))
            #expect(response.headers["Location"] == nil)
        }
    }

    @Test func deleteIsNotAllowed() async throws {
        try await withFakeIdP { idp, http in
            let response = try await http.send(
                OutboundRequest(method: "DELETE", url: FakeOAuth1TestClient(idp, http).url("authorize")))
            #expect(response.status == 405)
        }
    }

    @Test func callbackURLKeepsQueryAndFragment() {
        let fields = [
            URLFormField(name: "oauth_token", value: "a b"), URLFormField(name: "oauth_verifier", value: "v"),
        ]
        #expect(
            FakeIdPRouter.callbackURL("http://h:1/cb", adding: fields)
                == "http://h:1/cb?oauth_token=a%20b&oauth_verifier=v")
        #expect(
            FakeIdPRouter.callbackURL("http://h:1/cb?x=1", adding: fields).hasPrefix("http://h:1/cb?x=1&oauth_token="))
        #expect(FakeIdPRouter.callbackURL("http://h:1/cb?", adding: fields).hasPrefix("http://h:1/cb?oauth_token="))
        #expect(FakeIdPRouter.callbackURL("http://h:1/cb#f", adding: fields).hasSuffix("oauth_verifier=v#f"))
    }
}
