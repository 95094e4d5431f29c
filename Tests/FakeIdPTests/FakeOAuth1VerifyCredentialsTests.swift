import AuthHandlerCore
import AuthHandlerHTTP
import Foundation
import TestSupport
import Testing

@testable import FakeIdP

/// `GET /oauth1/account/verify_credentials.json`: signed with an access token, query included.
struct FakeOAuth1VerifyCredentialsTests {
    @Test func queryChangedAfterSigningIsABadSignature() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            let access = try await client.accessToken()
            let response = try await client.verifyCredentialsResponse(
                access, query: [URLFormField(name: "include_email", value: "false")],
                sentQuery: [URLFormField(name: "include_email", value: "true")])
            #expect(response.isRefusal(401, check: "signature"), "\(response.status) \(response.text)")
        }
    }

    @Test func requestTokenIsNotAnAccessToken() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            let requestToken = try await client.requestToken()
            let response = try await client.verifyCredentialsResponse(requestToken)
            #expect(response.isRefusal(401, check: "token"), "\(response.status) \(response.text)")
        }
    }

    @Test func accessTokenSecretIsRequiredForTheSignature() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            var access = try await client.accessToken()
            access.secret = ""
            let response = try await client.verifyCredentialsResponse(access)
            #expect(response.isRefusal(401, check: "signature"), "\(response.status) \(response.text)")
        }
    }

    @Test func accessTokenOfAnotherConsumerIsRefused() async throws {
        let consumers = [
            FakeIdPConfiguration.OAuth1Consumer(key: "fake-consumer-key", secret: "fake-consumer-secret"),
            FakeIdPConfiguration.OAuth1Consumer(key: "other-key", secret: "other-secret"),
        ]
        try await withFakeIdP(configuration: FakeIdPConfiguration(oauth1Consumers: consumers)) { idp, http in
            let access = try await FakeOAuth1TestClient(idp, http).accessToken()
            let other = FakeOAuth1TestClient(idp, http, consumerKey: "other-key", consumerSecret: "other-secret")
            let response = try await other.verifyCredentialsResponse(access)
            #expect(response.isRefusal(401, check: "token"), "\(response.status) \(response.text)")
        }
    }

    @Test func staleTimestampAndReplayedNonceAreRefused() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            let access = try await client.accessToken()
            let timestamp = await client.fakeNow()
            let first = try await client.verifyCredentialsResponse(access, timestamp: timestamp, nonce: "once")
            #expect(first.status == 200, "\(first.text)")
            let replay = try await client.verifyCredentialsResponse(access, timestamp: timestamp, nonce: "once")
            #expect(replay.isRefusal(401, check: "nonce"), "\(replay.status) \(replay.text)")
            await idp.advanceClock(seconds: 400)
            let stale = try await client.verifyCredentialsResponse(access)
            #expect(stale.isRefusal(401, check: "timestamp"), "\(stale.status) \(stale.text)")
        }
    }

    @Test func unsignedRequestIsMalformedAndPostIsNotAllowed() async throws {
        try await withFakeIdP { idp, http in
            let url = FakeOAuth1TestClient(idp, http).url("account/verify_credentials.json")
            let unsigned = try await http.get(url)
            #expect(unsigned.isRefusal(400, check: "authorization-header"), "\(unsigned.status) \(unsigned.text)")
            let post = try await http.postForm(url, [])
            #expect(post.status == 405)
        }
    }
}
