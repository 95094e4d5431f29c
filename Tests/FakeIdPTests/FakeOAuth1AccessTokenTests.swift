import AuthHandlerCore
import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerProtocols
import Foundation
import TestSupport
import Testing

@testable import FakeIdP

/// `POST /oauth1/access_token`: verifier, single use, expiry, and the signature with the request token.
struct FakeOAuth1AccessTokenTests {
    @Test func wrongVerifierIsRefused() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            let approved = try await client.approvedRequestToken()
            let response = try await client.accessTokenResponse(approved, verifier: approved.verifier + "x")
            #expect(response.isRefusal(401, check: "verifier"), "\(response.status) \(response.text)")
            #expect(!response.text.contains(approved.verifier))
        }
    }

    @Test func missingVerifierIsMalformed() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            let approved = try await client.approvedRequestToken()
            let response = try await client.accessTokenResponse(approved, verifier: nil)
            #expect(response.isRefusal(400, check: "verifier"), "\(response.status) \(response.text)")
        }
    }

    @Test func verifierInTheFormBodyIsAccepted() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            let approved = try await client.approvedRequestToken()
            let url = client.url("access_token")
            let body = [URLFormField(name: "oauth_verifier", value: approved.verifier)]
            let protocolParameters = [
                URLFormField(name: "oauth_consumer_key", value: "fake-consumer-key"),
                URLFormField(name: "oauth_token", value: approved.token),
                URLFormField(name: "oauth_signature_method", value: "HMAC-SHA1"),
                URLFormField(name: "oauth_timestamp", value: String(await client.fakeNow())),
                URLFormField(name: "oauth_nonce", value: "body-verifier"),
            ]
            // The signer refuses oauth_* request parameters, so build the signature from its parts.
            let uri = try BaseStringURI(url)
            let signature = try OAuth1Signature(
                method: .hmacSHA1,
                baseString: SignatureBaseString(
                    method: "POST", uri: uri, parameters: body, protocolParameters),
                consumerSecret: "fake-consumer-secret", tokenSecret: approved.secret)
            let authorization = OAuth1AuthorizationHeader(
                parameters: protocolParameters + [URLFormField(name: "oauth_signature", value: signature.value)])
            let response = try await http.postForm(url, body, headers: ["Authorization": authorization.value])
            #expect(response.status == 200, "\(response.text)")
        }
    }

    @Test func requestTokenIsSingleUse() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            let approved = try await client.approvedRequestToken()
            let first = try await client.accessTokenResponse(approved, verifier: approved.verifier)
            #expect(first.status == 200, "\(first.text)")
            let second = try await client.accessTokenResponse(approved, verifier: approved.verifier)
            #expect(second.isRefusal(401, check: "request-token"), "\(second.status) \(second.text)")
        }
    }

    @Test func aFailedExchangeStillUsesUpTheRequestToken() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            let approved = try await client.approvedRequestToken()
            let wrong = try await client.accessTokenResponse(approved, verifier: "wrong")
            #expect(wrong.isRefusal(401, check: "verifier"))
            let right = try await client.accessTokenResponse(approved, verifier: approved.verifier)
            #expect(right.isRefusal(401, check: "request-token"), "\(right.status) \(right.text)")
        }
    }

    @Test func expiredRequestTokenIsRefused() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            let approved = try await client.approvedRequestToken()
            await idp.advanceClock(seconds: 301)
            // Signed with the fake IdP's clock, so that only the token's age is wrong.
            let response = try await client.accessTokenResponse(
                approved, verifier: approved.verifier, timestamp: await client.fakeNow())
            #expect(response.isRefusal(401, check: "request-token"), "\(response.status) \(response.text)")
        }
    }

    @Test func requestTokenInsideItsLifetimeIsAccepted() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            let approved = try await client.approvedRequestToken()
            // 100 s short of the 300 s lifetime: slack for a loaded machine.
            await idp.advanceClock(seconds: 200)
            let response = try await client.accessTokenResponse(
                approved, verifier: approved.verifier, timestamp: await client.fakeNow())
            #expect(response.status == 200, "\(response.text)")
        }
    }

    @Test func tokenThatNoUserAuthorizedHasNoVerifierBoundToIt() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            let requestToken = try await client.requestToken()
            let response = try await client.accessTokenResponse(requestToken, verifier: "guessed")
            #expect(response.isRefusal(401, check: "verifier"), "\(response.status) \(response.text)")
        }
    }

    @Test func verifierOfAnotherTokenIsRefused() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            let first = try await client.approvedRequestToken()
            let second = try await client.approvedRequestToken(as: "bob")
            let response = try await client.accessTokenResponse(second, verifier: first.verifier)
            #expect(response.isRefusal(401, check: "verifier"), "\(response.status) \(response.text)")
        }
    }

    @Test func signatureWithTheWrongTokenSecretIsRefused() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            var approved = try await client.approvedRequestToken()
            approved.secret = "not-the-token-secret"
            let response = try await client.accessTokenResponse(approved, verifier: approved.verifier)
            #expect(response.isRefusal(401, check: "signature"), "\(response.status) \(response.text)")
        }
    }

    @Test func requestTokenOfAnotherConsumerIsRefused() async throws {
        let consumers = [
            FakeIdPConfiguration.OAuth1Consumer(key: "fake-consumer-key", secret: "fake-consumer-secret"),
            FakeIdPConfiguration.OAuth1Consumer(key: "other-key", secret: "other-secret"),
        ]
        try await withFakeIdP(configuration: FakeIdPConfiguration(oauth1Consumers: consumers)) { idp, http in
            let approved = try await FakeOAuth1TestClient(idp, http).approvedRequestToken()
            let other = FakeOAuth1TestClient(idp, http, consumerKey: "other-key", consumerSecret: "other-secret")
            let response = try await other.accessTokenResponse(approved, verifier: approved.verifier)
            #expect(response.isRefusal(401, check: "request-token"), "\(response.status) \(response.text)")
        }
    }

    @Test func staleTimestampAndReplayedNonceAreRefused() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            let stale = try await client.approvedRequestToken()
            let old = try await client.accessTokenResponse(
                stale, verifier: stale.verifier, timestamp: await client.fakeNow() - 3600)
            #expect(old.isRefusal(401, check: "timestamp"), "\(old.status) \(old.text)")

            let timestamp = await client.fakeNow()
            let first = try await client.approvedRequestToken()
            #expect(
                try await client.accessTokenResponse(first, verifier: first.verifier, timestamp: timestamp, nonce: "n")
                    .status == 200)
            let second = try await client.approvedRequestToken()
            let replay = try await client.accessTokenResponse(
                second, verifier: second.verifier, timestamp: timestamp, nonce: "n")
            #expect(replay.isRefusal(401, check: "nonce"), "\(replay.status) \(replay.text)")
        }
    }

    @Test func missingTokenIsMalformed() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            let header = try client.signer.authorizationHeader(
                method: "POST", url: client.url("access_token"), verifier: "v")
            let response = try await http.postForm(
                client.url("access_token"), [], headers: ["Authorization": header.value])
            #expect(response.isRefusal(400, check: "token"), "\(response.status) \(response.text)")
        }
    }
}
