import AuthHandlerCrypto
import AuthHandlerHTTP
import Foundation
import Testing

@testable import AuthHandlerAccounts

/// The ID token's header and claims in Firebase's layout, the JWKS and the discovery document.
@Suite struct AccountsIDTokenTests {
    @Test("the header is alg ES256, the ring's kid and typ JWT, and nothing else")
    func header() throws {
        let ring = try AccountsTokenFixture.ring()
        let signer = IDTokenSigner(ring: ring, settings: AccountsTokenFixture.settings)
        let issued = try signer.sign(try AccountsTokenFixture.subject(), now: AccountsTokenFixture.now)
        #expect(
            try AccountsTokenFixture.header(of: issued.token.reveal())
                == ["alg": .string("ES256"), "kid": .string(ring.current.keyID), "typ": .string("JWT")])
        #expect(!"\(issued)".contains(issued.token.reveal()))
    }

    @Test("the claims: iss, aud, sub = user_id, times, sid, profile, firebase, then the custom claims")
    func claims() throws {
        let signer = IDTokenSigner(ring: try AccountsTokenFixture.ring(), settings: AccountsTokenFixture.settings)
        let now = AccountsTokenFixture.now.addingTimeInterval(0.75)
        let issued = try signer.sign(try AccountsTokenFixture.subject(), now: now)
        let iat = Int64(1_800_000_000)
        #expect(issued.issuedAt == AccountsTokenFixture.now)
        #expect(issued.expiresIn == 3600)
        #expect(
            try AccountsTokenFixture.claims(of: issued.token.reveal()) == [
                "iss": .string("https://auth.example.com/__/auth"),
                "aud": .string("https://api.example.com"),
                "sub": .string("u8mPZx2QeCtT0jKq4EobQ3bXy1zA"),
                "user_id": .string("u8mPZx2QeCtT0jKq4EobQ3bXy1zA"),
                "iat": .integer(iat), "exp": .integer(iat + 3600), "auth_time": .integer(iat - 60),
                "sid": .string("session-1"),
                "email": .string("alice@example.com"), "email_verified": .bool(true), "name": .string("Alice"),
                "firebase": .object([
                    "sign_in_provider": .string("google.com"),
                    "identities": .object([
                        "google.com": .array([.string("1001")]), "email": .array([.string("alice@example.com")]),
                    ]),
                ]),
                "role": .string("admin"),
            ])
    }

    @Test("absent members are left out, and claims.identities false leaves the identities out")
    func absentMembers() throws {
        var subject = try AccountsTokenFixture.subject()
        subject.email = nil
        subject.displayName = nil
        subject.photoURL = "https://example.com/a.png"
        subject.customClaims = .empty
        subject.signInProvider = "twitter.com"
        subject.identities = [
            .init(providerID: "twitter.com", providerUserID: "42"),
            .init(providerID: "github.com", providerUserID: "7"),
        ]
        let ring = try AccountsTokenFixture.ring()
        let withIdentities = try IDTokenSigner(ring: ring, settings: AccountsTokenFixture.settings)
            .sign(subject, now: AccountsTokenFixture.now)
        let claims = try AccountsTokenFixture.claims(of: withIdentities.token.reveal())
        #expect(claims["email"] == nil)
        #expect(claims["email_verified"] == nil)
        #expect(claims["name"] == nil)
        #expect(claims["picture"] == .string("https://example.com/a.png"))
        #expect(
            claims["firebase"]?["identities"]
                == .object(["twitter.com": .array([.string("42")]), "github.com": .array([.string("7")])]))
        #expect(claims.count == 10)

        let settings = IDTokenSettings(
            publicURL: "https://auth.example.com", audience: "https://api.example.com", lifetimeSeconds: 300,
            includesIdentities: false)
        let without = try IDTokenSigner(ring: ring, settings: settings).sign(subject, now: AccountsTokenFixture.now)
        let bare = try AccountsTokenFixture.claims(of: without.token.reveal())
        #expect(bare["firebase"] == .object(["sign_in_provider": .string("twitter.com")]))
        #expect(bare["exp"] == .integer(1_800_000_300))
    }

    @Test("the audience defaults to publicURL, the issuer is publicURL/__/auth")
    func defaultAudience() {
        let settings = IDTokenSettings(publicURL: "https://auth.example.com")
        #expect(settings.issuer == "https://auth.example.com/__/auth")
        #expect(settings.audience == "https://auth.example.com")
        #expect(settings.jwksURI == "https://auth.example.com/__/auth/jwks.json")
        #expect(settings.discoveryURI == "https://auth.example.com/__/auth/.well-known/openid-configuration")
    }

    @Test("the JWKS lists every key of the ring as an ES256 signature key, with no private member")
    func keySet() throws {
        let current = try AccountSigningKey.generate()
        let next = try AccountSigningKey.generate()
        let previous = try AccountSigningKey.generate()
        let ring = try SigningKeyRing(current: current, next: next, previous: [previous])
        let document = try #require(JSONValue.parse(PublishedKeySet(ring: ring).serialized(sortingKeys: true)))
        let keys = try #require(document["keys"]?.arrayValue)
        #expect(keys.map { $0["kid"]?.stringValue } == [current.keyID, next.keyID, previous.keyID])
        for key in keys {
            #expect(Set(key.objectValue?.keys.map { $0 } ?? []) == ["kty", "crv", "x", "y", "kid", "use", "alg"])
            #expect(key["kty"] == .string("EC"))
            #expect(key["crv"] == .string("P-256"))
            #expect(key["use"] == .string("sig"))
            #expect(key["alg"] == .string("ES256"))
        }
        #expect(PublishedKeySet.maxAgeSeconds <= 3600)
    }

    @Test("the discovery document names the issuer, the JWKS and ES256, and no authorization endpoint")
    func discovery() throws {
        let document = OpenIDConfiguration(settings: AccountsTokenFixture.settings).json
        #expect(document["issuer"] == .string("https://auth.example.com/__/auth"))
        #expect(document["jwks_uri"] == .string("https://auth.example.com/__/auth/jwks.json"))
        #expect(document["id_token_signing_alg_values_supported"] == .array([.string("ES256")]))
        #expect(document["response_types_supported"] == .array([.string("id_token")]))
        #expect(document["subject_types_supported"] == .array([.string("public")]))
        #expect(document["token_endpoint"] == .string("https://auth.example.com/__/auth/token"))
        #expect(document["authorization_endpoint"] == nil)
    }
}
