import AuthHandlerCore
import AuthHandlerHTTP
import AuthHandlerProtocols
import Foundation
import TestSupport
import Testing

@testable import FakeIdP

/// Queued `bad-signature` and `oauth-error` failures on the OAuth 1.0a endpoints: next N calls, then normal.
struct FakeOAuth1QueuedFailureTests {
    @Test func badSignatureOnRequestTokenHappensForTheNextNCallsOnly() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            await idp.queue(FakeFailure(endpoint: .oauth1RequestToken, kind: .badSignature, count: 2))
            for _ in 0..<2 {
                let refused = try await client.requestTokenResponse()
                #expect(refused.isRefusal(401, check: "signature"), "\(refused.status) \(refused.text)")
            }
            #expect(await idp.pendingFailures().isEmpty)
            #expect(try await client.requestTokenResponse().status == 200)
        }
    }

    @Test func callbackUnconfirmedOmitsTheConfirmationOnTheNextCallOnly() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            await idp.queue(FakeFailure(endpoint: .oauth1RequestToken, kind: .callbackUnconfirmed))
            let unconfirmed = try await client.requestTokenResponse()
            #expect(unconfirmed.status == 200)
            let fields = unconfirmed.formFields
            #expect(fields.first(named: "oauth_token")?.isEmpty == false)
            #expect(fields.first(named: "oauth_callback_confirmed") == nil, "\(fields)")
            #expect(throws: OAuth1ClientError.self) { try OAuth1Client.temporaryCredentials(from: unconfirmed) }
            let confirmed = try await client.requestTokenResponse().formFields
            #expect(confirmed.first(named: "oauth_callback_confirmed") == "true")
        }
    }

    @Test func badSignatureOnAccessTokenStillUsesUpTheRequestToken() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            let approved = try await client.approvedRequestToken()
            await idp.queue(FakeFailure(endpoint: .oauth1AccessToken, kind: .badSignature))
            let refused = try await client.accessTokenResponse(approved, verifier: approved.verifier)
            #expect(refused.isRefusal(401, check: "signature"), "\(refused.status) \(refused.text)")
            let again = try await client.accessTokenResponse(approved, verifier: approved.verifier)
            #expect(again.isRefusal(401, check: "request-token"))
            let fresh = try await client.approvedRequestToken()
            #expect(try await client.accessTokenResponse(fresh, verifier: fresh.verifier).status == 200)
        }
    }

    @Test func badSignatureOnVerifyCredentialsHappensOnTheNextCallOnly() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            let access = try await client.accessToken()
            await idp.queue(FakeFailure(endpoint: .oauth1VerifyCredentials, kind: .badSignature))
            let refused = try await client.verifyCredentialsResponse(access)
            #expect(refused.isRefusal(401, check: "signature"), "\(refused.status) \(refused.text)")
            #expect(try await client.verifyCredentialsResponse(access).status == 200)
        }
    }

    @Test func oauthErrorAnswersTwitterJSONForTheNextNCalls() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            let access = try await client.accessToken()
            await idp.queue(
                FakeFailure(
                    endpoint: .oauth1VerifyCredentials,
                    kind: .oauthError(code: "89", description: "Invalid or expired token."),
                    count: 2))
            for _ in 0..<2 {
                let refused = try await client.verifyCredentialsResponse(access)
                #expect(refused.status == 401)
                #expect(refused.headers["Content-Type"] == "application/json")
                let errors = try #require(refused.jsonObject?["errors"] as? [[String: Any]])
                #expect((errors.first?["code"] as? NSNumber)?.intValue == 89)
                #expect(errors.first?["message"] as? String == "Invalid or expired token.")
            }
            #expect(try await client.verifyCredentialsResponse(access).status == 200)
        }
    }

    @Test func oauthErrorOnTokenEndpointsLeavesTheTokensAlone() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            await idp.queue(
                FakeFailure(endpoint: .oauth1RequestToken, kind: .oauthError(code: "415", description: nil)))
            let refused = try await client.requestTokenResponse()
            #expect(refused.status == 401)
            let errors = try #require(refused.jsonObject?["errors"] as? [[String: Any]])
            #expect((errors.first?["code"] as? NSNumber)?.intValue == 415)
            #expect(errors.first?["message"] as? String == "415")

            let approved = try await client.approvedRequestToken()
            await idp.queue(
                FakeFailure(endpoint: .oauth1AccessToken, kind: .oauthError(code: "invalid_request", description: "x")))
            let failed = try await client.accessTokenResponse(approved, verifier: approved.verifier)
            #expect(failed.status == 401)
            let codes = try #require(failed.jsonObject?["errors"] as? [[String: Any]])
            #expect(codes.first?["code"] as? String == "invalid_request")
            let exchanged = try await client.accessTokenResponse(approved, verifier: approved.verifier)
            #expect(exchanged.status == 200, "\(exchanged.text)")
        }
    }

    @Test func oauthErrorOnAuthorizeDeniesTheNextNCalls() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            await idp.queue(
                FakeFailure(endpoint: .oauth1Authorize, kind: .oauthError(code: "access_denied", description: nil)))
            let requestToken = try await client.requestToken()
            let denied = try await client.authorize(requestToken.token, screenName: "alice", path: "authenticate")
            #expect(denied.status == 302)
            #expect(denied.locationQuery.first(named: "denied") == requestToken.token)
            #expect(denied.locationQuery.first(named: "oauth_verifier") == nil)
            _ = try await client.approvedRequestToken()
        }
    }

    @Test func otherFailureKindsAreIgnoredByTheOAuth1Endpoints() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            await idp.queue(FakeFailure(endpoint: .oauth1RequestToken, kind: .wrongIssuer))
            await idp.queue(FakeFailure(endpoint: .oauth1Authorize, kind: .badSignature))
            _ = try await client.approvedRequestToken()
            #expect(await idp.pendingFailures().isEmpty)
        }
    }
}
