import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerProtocols
import Foundation
import Testing

@testable import AuthHandlerAccounts

/// Verifying the daemon's own ID tokens as bearer tokens: what passes, and each refusal.
@Suite struct AccountsBearerTokenTests {
    let ring: SigningKeyRing
    let signer: IDTokenSigner
    let verifier: IDTokenVerifier
    let now = AccountsTokenFixture.now

    init() throws {
        ring = try AccountsTokenFixture.ring()
        signer = IDTokenSigner(ring: ring, settings: AccountsTokenFixture.settings)
        verifier = IDTokenVerifier(ring: ring, settings: AccountsTokenFixture.settings)
    }

    private func token(at time: Date? = nil) throws -> String {
        try signer.sign(try AccountsTokenFixture.subject(), now: time ?? now).token.reveal()
    }

    @Test("a token of the ring's key answers its user, session and times")
    func accepted() throws {
        let verified = try verifier.verify(try token(), now: now.addingTimeInterval(10))
        #expect(verified.localID.value == "u8mPZx2QeCtT0jKq4EobQ3bXy1zA")
        #expect(verified.sessionID == "session-1")
        #expect(verified.authTime == now.addingTimeInterval(-60))
        #expect(verified.issuedAt == now)
        #expect(verified.expiresAt == now.addingTimeInterval(3600))
    }

    @Test("an auth_time a moment after the signing time is written as iat, and the token verifies")
    func authTimeNotAfterIssue() throws {
        var subject = try AccountsTokenFixture.subject()
        subject.authTime = now.addingTimeInterval(1.5)
        let token = try signer.sign(subject, now: now).token.reveal()
        #expect(try AccountsTokenFixture.claims(of: token)["auth_time"] == .integer(1_800_000_000))
        #expect(try verifier.verify(token, now: now).authTime == now)
    }

    @Test("alg none, HS256 and RS256 are refused, even naming the ring's kid")
    func otherAlgorithmsRefused() throws {
        let claims = JSONValue.object(try AccountsTokenFixture.claims(of: try token()))
        let kid = JSONValue.string(ring.current.keyID)
        let unsigned = try CompactJWS.unsigned(payload: claims.serialized)
        #expect(throws: BearerTokenError.algorithmNotAllowed) { try verifier.verify(unsigned, now: now) }

        // HS256 keyed with the public key's JSON: the classic confusion attack on a verifier that trusts `alg`.
        let hsHeader = JSONValue.object(["alg": .string("HS256"), "kid": kid, "typ": .string("JWT")])
        let publicJWK = ring.current.publicKey.jwk.json.serialized
        let hsInput =
            Base64.urlEncode(hsHeader.serialized(sortingKeys: true)) + "." + Base64.urlEncode(claims.serialized)
        let hmac = try HMAC.sha256(key: publicJWK, message: Array(hsInput.utf8))
        #expect(throws: BearerTokenError.algorithmNotAllowed) {
            try verifier.verify(hsInput + "." + Base64.urlEncode(hmac), now: now)
        }

        let rsa = try SigningKey.generate(.rs256)
        let rs256 = try CompactJWS.sign(
            header: JOSEHeader(alg: "RS256", kid: ring.current.keyID), payload: claims.serialized, key: rsa)
        #expect(throws: BearerTokenError.algorithmNotAllowed) { try verifier.verify(rs256, now: now) }

        // A key source in the header, even with ES256 and our kid.
        var embedded = JOSEHeader(alg: "ES256", kid: ring.current.keyID)
        embedded.jwk = ring.current.publicKey.jwk
        let withJWK = try CompactJWS.sign(header: embedded, payload: claims.serialized, key: ring.current.signingKey)
        #expect(throws: BearerTokenError.algorithmNotAllowed) { try verifier.verify(withJWK, now: now) }
    }

    @Test("a kid that no key of the ring has, or none at all, is an unknown key")
    func unknownKey() throws {
        let stranger = try AccountsTokenFixture.ring()
        let foreign = try IDTokenSigner(ring: stranger, settings: AccountsTokenFixture.settings)
            .sign(try AccountsTokenFixture.subject(), now: now).token.reveal()
        #expect(throws: BearerTokenError.unknownKey) { try verifier.verify(foreign, now: now) }
        let claims = try AccountsTokenFixture.claims(of: try token())
        let noKid = try CompactJWS.sign(
            header: JOSEHeader(alg: "ES256"), payload: JSONValue.object(claims).serialized,
            key: ring.current.signingKey)
        #expect(throws: BearerTokenError.unknownKey) { try verifier.verify(noKid, now: now) }
    }

    @Test("a changed payload or signature does not verify")
    func badSignature() throws {
        let parts = try token().split(separator: ".").map(String.init)
        var signature = try #require(Base64.urlDecode(parts[2]))
        signature[5] ^= 0x01
        let flipped = [parts[0], parts[1], Base64.urlEncode(signature)].joined(separator: ".")
        #expect(throws: BearerTokenError.invalidSignature) { try verifier.verify(flipped, now: now) }

        var claims = try AccountsTokenFixture.claims(of: parts.joined(separator: "."))
        claims["sub"] = .string("someoneElse000000000000000000")
        let swapped = [parts[0], Base64.urlEncode(JSONValue.object(claims).serialized), parts[2]]
            .joined(separator: ".")
        #expect(throws: BearerTokenError.invalidSignature) { try verifier.verify(swapped, now: now) }
    }

    @Test("another issuer or audience is refused, signed by our own key")
    func wrongIssuerOrAudience() throws {
        let otherIssuer = IDTokenSettings(publicURL: "https://evil.example.com", audience: "https://api.example.com")
        let otherAudience = IDTokenSettings(publicURL: "https://auth.example.com", audience: "https://other.example")
        for (settings, refusal) in [
            (otherIssuer, BearerTokenError.wrongIssuer), (otherAudience, BearerTokenError.wrongAudience),
        ] {
            let token = try IDTokenSigner(ring: ring, settings: settings)
                .sign(try AccountsTokenFixture.subject(), now: now).token.reveal()
            #expect(throws: refusal) { try verifier.verify(token, now: now) }
        }
    }

    @Test("a token is refused from exp on, and when iat is further ahead than the skew")
    func times() throws {
        let token = try token()
        #expect(throws: Never.self) { try verifier.verify(token, now: now.addingTimeInterval(3599)) }
        #expect(throws: BearerTokenError.expired) { try verifier.verify(token, now: now.addingTimeInterval(3600)) }
        let ahead = try self.token(at: now.addingTimeInterval(31))
        #expect(throws: BearerTokenError.issuedInFuture) { try verifier.verify(ahead, now: now) }
        let withinSkew = try self.token(at: now.addingTimeInterval(30))
        #expect(throws: Never.self) { try verifier.verify(withinSkew, now: now) }
    }

    @Test("garbage is malformed, and no refusal repeats the token")
    func malformed() throws {
        for garbage in ["", "a.b", "not.a.token", "..", String(repeating: "a", count: 20_000)] {
            let refusal = #expect(throws: BearerTokenError.self) { try verifier.verify(garbage, now: now) }
            guard case .malformed = refusal else {
                Issue.record("\(garbage.prefix(20)) gave \(String(describing: refusal))")
                continue
            }
        }
        let token = try token()
        let parts = token.split(separator: ".").map(String.init)
        let refusal = #expect(throws: BearerTokenError.self) {
            try verifier.verify(token, now: now.addingTimeInterval(4000))
        }
        for part in parts { #expect(refusal?.description.contains(part) == false) }
    }

    @Test("after a rotation a previous key still verifies; once removed from the ring it does not")
    func rotation() throws {
        let old = try token()
        let fresh = try AccountSigningKey.generate()
        let rotated = try SigningKeyRing(current: fresh, previous: [ring.current])
        let settings = AccountsTokenFixture.settings
        #expect(throws: Never.self) { try IDTokenVerifier(ring: rotated, settings: settings).verify(old, now: now) }
        let newToken = try IDTokenSigner(ring: rotated, settings: settings)
            .sign(try AccountsTokenFixture.subject(), now: now).token.reveal()
        #expect(try AccountsTokenFixture.header(of: newToken)["kid"] == .string(fresh.keyID))
        // A next key verifies too: an instance that promoted it early may already sign with it.
        let announced = try SigningKeyRing(current: ring.current, next: fresh)
        #expect(throws: Never.self) {
            try IDTokenVerifier(ring: announced, settings: settings).verify(newToken, now: now)
        }

        let removed = try SigningKeyRing(current: fresh)
        #expect(throws: BearerTokenError.unknownKey) {
            try IDTokenVerifier(ring: removed, settings: settings).verify(old, now: now)
        }
    }
}
