import Foundation
import TestSupport
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerCrypto
@testable import AuthHandlerHTTP
@testable import AuthHandlerProtocols

struct ProviderAppleClientSecretTests {
    static let start = Date(timeIntervalSince1970: 1_790_000_000)

    static func generator(_ key: SigningKey, clock: TestClock) throws -> AppleClientSecret {
        try AppleClientSecret(
            teamID: "DEF123GHIJ", keyID: "ABC123DEFG", clientID: "com.example.web",
            privateKeyPEM: Secret(try key.pkcs8PEM()), now: clock.read)
    }

    static func claims(of token: String, verifiedWith key: SigningKey) throws -> (JOSEHeader, JSONValue) {
        let jws = try CompactJWS(parsing: token)
        #expect(key.publicKey.verify(.es256, signature: jws.signature, message: jws.signingInput))
        return (jws.header, try #require(JSONValue.parse(jws.payload)))
    }

    @Test func theSecretIsAnES256JWTWithApplesClaims() throws {
        let key = try SigningKey.generate(.es256)
        let clock = TestClock(Self.start)
        let secret = try Self.generator(key, clock: clock).current()
        let (header, claims) = try Self.claims(of: secret.reveal(), verifiedWith: key)
        #expect(header.alg == "ES256")
        #expect(header.kid == "ABC123DEFG")
        #expect(
            claims
                == .object([
                    "iss": .string("DEF123GHIJ"), "iat": .number(1_790_000_000), "exp": .number(1_790_003_600),
                    "aud": .string("https://appleid.apple.com"), "sub": .string("com.example.web"),
                ]))
        // The signed header and claims as `JSONEncoder` (`.sortedKeys`, `.withoutEscapingSlashes`) wrote them.
        let parts = secret.reveal().split(separator: ".").map { Base64.urlDecode(String($0)) ?? [] }
        #expect(String(decoding: parts[0], as: UTF8.self) == #"{"alg":"ES256","kid":"ABC123DEFG"}"#)
        #expect(
            String(decoding: parts[1], as: UTF8.self)
                == #"{"aud":"https://appleid.apple.com","exp":1790003600,"iat":1790000000,"iss":"DEF123GHIJ","#
                + #""sub":"com.example.web"}"#)
    }

    @Test func theSecretIsCachedAndRenewedBeforeExpiry() throws {
        let key = try SigningKey.generate(.es256)
        let clock = TestClock(Self.start)
        let generator = try Self.generator(key, clock: clock)
        let first = try generator.current().reveal()
        clock.advance(by: 2999)
        #expect(try generator.current().reveal() == first)

        clock.advance(by: 1)  // 600 s before exp: renewed.
        let second = try generator.current().reveal()
        #expect(second != first)
        let (_, claims) = try Self.claims(of: second, verifiedWith: key)
        #expect(claims["iat"]?.numberValue == 1_790_003_000)
        #expect(claims["exp"]?.numberValue == 1_790_006_600)

        clock.advance(by: 7200)  // long expired: renewed again.
        let third = try generator.current().reveal()
        #expect(try Self.claims(of: third, verifiedWith: key).1["iat"]?.numberValue == 1_790_010_200)
    }

    @Test func aClockSteppedBackRenews() throws {
        let key = try SigningKey.generate(.es256)
        let clock = TestClock(Self.start)
        let generator = try Self.generator(key, clock: clock)
        let first = try generator.current().reveal()
        clock.advance(by: -60)
        #expect(try generator.current().reveal() != first)
    }

    @Test func anRSAKeyOrABadLifetimeIsRefused() throws {
        let rsa = try SigningKey.generate(.rs256)
        #expect(throws: CryptoError.self) {
            try AppleClientSecret(
                teamID: "T", keyID: "K", clientID: "C", privateKeyPEM: Secret(try rsa.pkcs8PEM()))
        }
        let key = try SigningKey.generate(.es256)
        #expect(throws: CryptoError.self) {
            try AppleClientSecret(
                teamID: "T", keyID: "K", clientID: "C", privateKeyPEM: Secret(try key.pkcs8PEM()),
                lifetime: AppleClientSecret.maximumLifetime + 1)
        }
        #expect(throws: CryptoError.self) {
            try AppleClientSecret(teamID: "T", keyID: "K", clientID: "C", privateKeyPEM: Secret("not a key"))
        }
    }

    @Test func descriptionsShowNoKeyMaterial() throws {
        let key = try SigningKey.generate(.es256)
        let pem = try key.pkcs8PEM()
        let generator = try Self.generator(key, clock: TestClock(Self.start))
        var dumped = ""
        dump(generator, to: &dumped)
        let body = pem.split(separator: "\n")[1]
        for text in [
            generator.description, String(describing: generator), dumped,
            ClientSecretSource.appleGenerated(generator).description,
        ] {
            #expect(!text.contains(body))
        }
    }
}
