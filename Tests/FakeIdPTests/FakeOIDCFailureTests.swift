import AuthHandlerCore
import AuthHandlerHTTP
import Foundation
import TestSupport
import Testing

@testable import FakeIdP

/// Each OIDC failure mode, queued through the control API with `count: 2`: two calls are affected, the third
/// is normal again.
@Suite(.serialized) struct FakeOIDCFailureTests {
    /// Queues `kind` for the token endpoint twice, redeems three fresh codes and checks each ID token.
    private func expectIDTokenFailure(
        _ kind: String, affected: (InspectedIDToken, FakeIdP) -> Bool
    ) async throws {
        try await withFakeIdP { idp, client in
            try await idp.queueThroughControlAPI(client, #"{"endpoint": "oidc/token", "kind": "\#(kind)", "count": 2}"#)
            var outcomes: [Bool] = []
            for _ in 0..<3 {
                let tokens = try await idp.confidentialTokens(client)
                let idToken = try InspectedIDToken(
                    try #require(tokens["id_token"] as? String), keys: try await idp.jwks(client))
                outcomes.append(affected(idToken, idp))
                if outcomes.count == 3 { #expect(Self.isValid(idToken, idp: idp), "the third ID token is normal") }
            }
            #expect(outcomes == [true, true, false], "\(kind)")
            #expect(await idp.pendingFailures().isEmpty)
        }
    }

    /// Every check a relying party makes, with the test's own client, nonce and clock.
    private static func isValid(_ token: InspectedIDToken, idp: FakeIdP) -> Bool {
        let now = Int(Date().timeIntervalSince1970)
        return token.signatureVerifies && token.string("iss") == idp.issuer && token.string("aud") == FakeOIDC.clientID
            && token.string("nonce") == "nonce-456" && (token.number("exp") ?? 0) > now
    }

    @Test func wrongIssuerOnToken() async throws {
        try await expectIDTokenFailure("wrong-iss") { token, idp in
            token.signatureVerifies && token.string("iss") == FakeIDTokenIssuer.wrongIssuer
        }
    }

    @Test func wrongNonce() async throws {
        try await expectIDTokenFailure("wrong-nonce") { token, _ in
            token.signatureVerifies && token.string("nonce") != nil && token.string("nonce") != "nonce-456"
        }
    }

    @Test func wrongAudience() async throws {
        try await expectIDTokenFailure("wrong-aud") { token, _ in
            token.signatureVerifies && token.string("aud") == FakeIDTokenIssuer.wrongAudience
        }
    }

    @Test func expiredIDToken() async throws {
        try await expectIDTokenFailure("expired-id-token") { token, _ in
            let now = Int(Date().timeIntervalSince1970)
            guard let exp = token.number("exp"), let iat = token.number("iat") else { return false }
            return token.signatureVerifies && exp <= now - 3600 && iat < exp
        }
    }

    @Test func unsignedIDToken() async throws {
        try await expectIDTokenFailure("unsigned-id-token") { token, _ in
            token.jws.header.alg == "none" && token.jws.signature.isEmpty && !token.signatureVerifies
                && token.string("sub") == "1001"
        }
    }

    @Test func badSignature() async throws {
        try await expectIDTokenFailure("bad-signature") { token, idp in
            token.jws.header.alg == "RS256" && token.jws.signature.count == 256 && !token.signatureVerifies
                && token.string("iss") == idp.issuer
        }
    }

    @Test func wrongIssuerOnAuthorize() async throws {
        try await withFakeIdP { idp, client in
            try await idp.queueThroughControlAPI(
                client, #"{"endpoint": "oidc/authorize", "kind": "wrong-iss", "count": 2}"#)
            var issuers: [String?] = []
            for _ in 0..<3 {
                let response = try await idp.authorize(client, FakeOIDC.authorizeFields())
                #expect(response.status == 302)
                #expect(response.locationQuery.first(named: "code") != nil)
                issuers.append(response.locationQuery.first(named: "iss"))
            }
            #expect(issuers == [FakeIDTokenIssuer.wrongIssuer, FakeIDTokenIssuer.wrongIssuer, idp.issuer])
        }
    }

    @Test func oauthErrorOnAuthorize() async throws {
        try await withFakeIdP { idp, client in
            try await idp.queueThroughControlAPI(
                client,
                #"{"endpoint": "oidc/authorize", "kind": "oauth-error", "error": "temporarily_unavailable", "#
                    + #""error_description": "try later", "count": 2}"#)
            var errors: [String?] = []
            for _ in 0..<3 {
                let response = try await idp.authorize(client, FakeOIDC.authorizeFields())
                #expect(response.status == 302)
                #expect(response.locationQuery.first(named: "state") == "state-123")
                #expect(response.locationQuery.first(named: "iss") == idp.issuer)
                errors.append(response.locationQuery.first(named: "error"))
                if errors.count < 3 {
                    #expect(response.locationQuery.first(named: "error_description") == "try later")
                    #expect(response.locationQuery.first(named: "code") == nil)
                } else {
                    #expect(response.locationQuery.first(named: "code") != nil)
                }
            }
            #expect(errors == ["temporarily_unavailable", "temporarily_unavailable", nil])
        }
    }

    @Test func oauthErrorOnToken() async throws {
        try await withFakeIdP { idp, client in
            try await idp.queueThroughControlAPI(
                client, #"{"endpoint": "oidc/token", "kind": "oauth-error", "error": "invalid_grant", "count": 2}"#)
            let code = try await idp.code(client)
            var statuses: [Int] = []
            for _ in 0..<3 {
                let response = try await idp.token(client, FakeOIDC.codeGrant(code), headers: FakeOIDC.basic())
                statuses.append(response.status)
                if statuses.count < 3 {
                    #expect(response.jsonObject?["error"] as? String == "invalid_grant")
                    #expect(response.jsonObject?["error_description"] as? String == "queued failure")
                } else {
                    #expect(response.jsonObject?["id_token"] != nil)
                }
            }
            // The queued error answers before the code is looked at, so the same code still works after it.
            #expect(statuses == [400, 400, 200])
        }
    }

    @Test func rotateKeysReplacesTheKidAndDropsTheOldKey() async throws {
        try await withFakeIdP { idp, client in
            let original = try #require(try await idp.jwks(client).first?.kid)
            try await idp.queueThroughControlAPI(
                client, #"{"endpoint": "oidc/jwks", "kind": "rotate-keys", "count": 2}"#)
            var kids: [String] = []
            for _ in 0..<3 {
                let keys = try await idp.jwks(client)
                #expect(keys.count == 1)
                kids.append(try #require(keys.first?.kid))
            }
            #expect(kids[0] != original)
            #expect(kids[1] != kids[0])
            #expect(kids[2] == kids[1], "the third call does not rotate")
            #expect(!kids.contains(original))

            let tokens = try await idp.confidentialTokens(client)
            let idToken = try InspectedIDToken(
                try #require(tokens["id_token"] as? String), keys: try await idp.jwks(client))
            #expect(idToken.jws.header.kid == kids[2])
            #expect(idToken.signatureVerifies)
        }
    }

    @Test func rotateKeysOnTokenSignsWithTheNewKey() async throws {
        try await withFakeIdP { idp, client in
            let before = try await idp.jwks(client)
            await idp.queue(FakeFailure(endpoint: .oidcToken, kind: .rotateKeys, count: 1))
            let tokens = try await idp.confidentialTokens(client)
            let token = try #require(tokens["id_token"] as? String)
            #expect(!(try InspectedIDToken(token, keys: before).signatureVerifies), "the old key is gone")
            let after = try InspectedIDToken(token, keys: try await idp.jwks(client))
            #expect(after.signatureVerifies)
            #expect(after.jws.header.kid != before.first?.kid)
        }
    }

    @Test("a queued rotate-keys makes its key when queued, so the rotating answer does no key generation")
    func rotateKeysIsPreparedWhenQueued() async throws {
        let state = try FakeIdPState(configuration: FakeIdPConfiguration())
        await state.queue(FakeFailure(endpoint: .oidcToken, kind: .rotateKeys, count: 2))
        let prepared = await state.preparedKeys.map(\.publicKey.keyID)
        #expect(prepared == ["fake-key-2", "fake-key-3"])
        try await state.rotateKeys()
        #expect(await state.signingKey.publicKey.keyID == "fake-key-2")
        #expect(await state.preparedKeys.count == 1)
        await state.clearFailures()
        #expect(await state.preparedKeys.isEmpty)
    }

    @Test func wrongIssuerInDiscovery() async throws {
        try await withFakeIdP { idp, client in
            await idp.queue(FakeFailure(endpoint: .oidcDiscovery, kind: .wrongIssuer, count: 1))
            let url = idp.issuer + "/.well-known/openid-configuration"
            let wrong = try await client.get(url).jsonObject?["issuer"] as? String
            let right = try await client.get(url).jsonObject?["issuer"] as? String
            #expect(wrong == FakeIDTokenIssuer.wrongIssuer)
            #expect(right == idp.issuer)
        }
    }

    @Test func oauthErrorOnUserInfoIsABearerError() async throws {
        try await withFakeIdP { idp, client in
            let tokens = try await idp.confidentialTokens(client)
            let bearer: HTTPHeaders = ["Authorization": "Bearer " + (try #require(tokens["access_token"] as? String))]
            await idp.queue(
                FakeFailure(endpoint: .oidcUserInfo, kind: .oauthError(code: "invalid_token", description: "a\r\nb")))
            let failed = try await client.get(idp.issuer + "/userinfo", headers: bearer)
            #expect(failed.status == 401)
            #expect(failed.headers["WWW-Authenticate"]?.contains(#"error="invalid_token""#) == true)
            #expect(try await client.get(idp.issuer + "/userinfo", headers: bearer).status == 200)
        }
    }
}
