import AuthHandlerCore
import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerProtocols
import Foundation
import TestSupport
import Testing

@testable import FakeIdP

/// `POST /oauth1/request_token`: each rule, one request that breaks it, refused with the documented status.
struct FakeOAuth1RequestTokenTests {
    @Test func wrongConsumerSecretIsABadSignature() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http, consumerSecret: "not-the-secret")
            let response = try await client.requestTokenResponse()
            #expect(response.isRefusal(401, check: "signature"), "\(response.status) \(response.text)")
            #expect(response.headers["WWW-Authenticate"]?.hasPrefix("OAuth") == true)
            #expect(!response.text.contains("not-the-secret"))
            #expect(!response.text.contains("fake-consumer-secret"))
        }
    }

    @Test func bodyChangedAfterSigningIsABadSignature() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            let url = client.url("request_token")
            let header = try client.signer.authorizationHeader(
                method: "POST", url: url, parameters: [URLFormField(name: "x_auth_access_type", value: "read")],
                callback: FakeOAuth1TestClient.callback)
            let response = try await http.postForm(
                url, [URLFormField(name: "x_auth_access_type", value: "write")],
                headers: ["Authorization": header.value])
            #expect(response.isRefusal(401, check: "signature"), "\(response.status) \(response.text)")
            let signature = try #require(header.signature)
            #expect(!response.text.contains(signature))
        }
    }

    @Test func unknownConsumerIsRefused() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http, consumerKey: "nobody")
            let response = try await client.requestTokenResponse()
            #expect(response.isRefusal(401, check: "consumer"), "\(response.status) \(response.text)")
        }
    }

    @Test func timestampOutsideTheWindowIsRefused() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            // ±350 and -250 against a ±300 s window: 50 s of slack for a loaded machine between signing and checking.
            let old = try await client.requestTokenResponse(timestamp: await client.fakeNow() - 350)
            #expect(old.isRefusal(401, check: "timestamp"), "\(old.status) \(old.text)")
            let future = try await client.requestTokenResponse(timestamp: await client.fakeNow() + 350)
            #expect(future.isRefusal(401, check: "timestamp"), "\(future.status) \(future.text)")
            let inside = try await client.requestTokenResponse(timestamp: await client.fakeNow() - 250)
            #expect(inside.status == 200, "\(inside.text)")
        }
    }

    @Test func advancingTheClockMakesAFreshlySignedRequestStale() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            await idp.advanceClock(seconds: 600)
            let response = try await client.requestTokenResponse()
            #expect(response.isRefusal(401, check: "timestamp"), "\(response.status) \(response.text)")
        }
    }

    @Test func replayedNonceIsRefused() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            let timestamp = await client.fakeNow()
            let first = try await client.requestTokenResponse(timestamp: timestamp, nonce: "nonce-1")
            #expect(first.status == 200, "\(first.text)")
            let replay = try await client.requestTokenResponse(timestamp: timestamp, nonce: "nonce-1")
            #expect(replay.isRefusal(401, check: "nonce"), "\(replay.status) \(replay.text)")
            let sameNonceOtherTimestamp = try await client.requestTokenResponse(
                timestamp: timestamp - 1, nonce: "nonce-1")
            #expect(sameNonceOtherTimestamp.status == 200, "\(sameNonceOtherTimestamp.text)")
        }
    }

    @Test func aForgedRequestDoesNotBurnTheNonce() async throws {
        try await withFakeIdP { idp, http in
            let timestamp = await FakeOAuth1TestClient(idp, http).fakeNow()
            let forger = FakeOAuth1TestClient(idp, http, consumerSecret: "guess")
            let forged = try await forger.requestTokenResponse(timestamp: timestamp, nonce: "shared")
            #expect(forged.isRefusal(401, check: "signature"))
            let genuine = try await FakeOAuth1TestClient(idp, http).requestTokenResponse(
                timestamp: timestamp, nonce: "shared")
            #expect(genuine.status == 200, "\(genuine.text)")
        }
    }

    @Test func missingCallbackIsMalformed() async throws {
        try await withFakeIdP { idp, http in
            let response = try await FakeOAuth1TestClient(idp, http).requestTokenResponse(callback: nil)
            #expect(response.isRefusal(400, check: "callback"), "\(response.status) \(response.text)")
        }
    }

    @Test(arguments: [
        "http://evil.example/__/auth/handler", "http://127.0.0.1:4000/elsewhere",
        "http://127.0.0.1/__/auth/handler", "https://127.0.0.1:4000/__/auth/handler", "OOB",
    ])
    func callbackNotAcceptedIsRefused(_ callback: String) async throws {
        try await withFakeIdP { idp, http in
            let response = try await FakeOAuth1TestClient(idp, http).requestTokenResponse(callback: callback)
            #expect(response.isRefusal(401, check: "callback"), "\(response.status) \(response.text)")
        }
    }

    @Test func onlyTheConfiguredCallbacksAreAcceptedWhenListed() async throws {
        let configuration = FakeIdPConfiguration(redirectURIs: ["http://127.0.0.1:9/cb"])
        try await withFakeIdP(configuration: configuration) { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            #expect(try await client.requestTokenResponse(callback: "http://127.0.0.1:9/cb").status == 200)
            let loopback = try await client.requestTokenResponse()
            #expect(loopback.isRefusal(401, check: "callback"))
        }
    }

    @Test func missingAuthorizationHeaderIsMalformed() async throws {
        try await withFakeIdP { idp, http in
            let url = FakeOAuth1TestClient(idp, http).url("request_token")
            let response = try await http.postForm(
                url, [URLFormField(name: "oauth_callback", value: FakeOAuth1TestClient.callback)])
            #expect(response.isRefusal(400, check: "authorization-header"), "\(response.status) \(response.text)")
        }
    }

    @Test(arguments: [
        #"OAuth oauth_consumer_key="fake-consumer-key", oauth_signature_method="RSA-SHA1", oauth_signature="x""#,
        #"OAuth oauth_consumer_key="fake-consumer-key", oauth_signature_method="HMAC-SHA1""#,
        #"OAuth oauth_consumer_key="fake-consumer-key", oauth_consumer_key="again""#,
        #"OAuth oauth_consumer_key="unterminated"#,
        #"Bearer abc"#,
    ])
    func malformedHeaderIsRefusedWith400(_ header: String) async throws {
        try await withFakeIdP { idp, http in
            let url = FakeOAuth1TestClient(idp, http).url("request_token")
            let response = try await http.postForm(url, [], headers: ["Authorization": header])
            #expect(response.status == 400, "\(response.text)")
            #expect(response.text.contains("check failed"))
        }
    }

    @Test func protocolParameterInBothHeaderAndBodyIsMalformed() async throws {
        try await withFakeIdP { idp, http in
            let client = FakeOAuth1TestClient(idp, http)
            let url = client.url("request_token")
            let header = try client.signer.authorizationHeader(
                method: "POST", url: url, callback: FakeOAuth1TestClient.callback)
            let response = try await http.postForm(
                url, [URLFormField(name: "oauth_callback", value: "oob")], headers: ["Authorization": header.value])
            #expect(response.status == 400, "\(response.text)")
        }
    }

    @Test func getIsNotAllowed() async throws {
        try await withFakeIdP { idp, http in
            let response = try await http.get(FakeOAuth1TestClient(idp, http).url("request_token"))
            #expect(response.status == 405)
            #expect(response.headers["Allow"] == "POST")
        }
    }
}
