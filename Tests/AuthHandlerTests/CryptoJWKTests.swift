import Foundation
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerCrypto
@testable import AuthHandlerHTTP
@testable import AuthHandlerProtocols

/// `JWK` decoding and the checks `PublicKey(jwk:)` makes before a key may verify anything.
struct CryptoJWKTests {
    private func decode(_ json: String) throws -> JWK {
        try JSONDecoder().decode(JWK.self, from: Data(json.utf8))
    }

    private func rfcECKey() throws -> JWK { try decode(CryptoTestVectors.es256JWKJSON) }
    private func rfcRSAKey() throws -> JWK { try decode(CryptoTestVectors.rs256JWKJSON) }

    @Test func decodesRFC7515KeysIgnoringUnknownMembers() throws {
        let rsa = try rfcRSAKey()  // carries the private "d", which JWK does not model
        #expect(rsa.kty == "RSA")
        #expect(rsa.e == "AQAB")
        #expect(rsa.n?.hasPrefix("ofgWCuLjybRlzo0t") == true)
        #expect(rsa.crv == nil && rsa.x == nil)
        let ec = try rfcECKey()
        #expect(ec.kty == "EC" && ec.crv == "P-256")
        #expect(ec.x == "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU")
    }

    @Test func decodesAllModelledMembers() throws {
        let jwk = try decode(
            #"{"kty":"EC","kid":"k1","alg":"ES256","use":"sig","crv":"P-256","x":"a","y":"b","x5c":[]}"#)
        #expect(jwk == JWK(kty: "EC", kid: "k1", alg: "ES256", use: "sig", crv: "P-256", x: "a", y: "b"))
    }

    /// The writer (`JWK+JSON.swift`) writes the members that are set and the reader reads them back.
    @Test func writeReadRoundTrip() throws {
        let jwk = JWK(kty: "RSA", kid: "2010-12-29", alg: "RS256", use: "sig", n: "AQAB", e: "AQAB")
        let written = jwk.serialized(sortingKeys: true)
        #expect(
            String(decoding: written, as: UTF8.self)
                == #"{"alg":"RS256","e":"AQAB","kid":"2010-12-29","kty":"RSA","n":"AQAB","use":"sig"}"#)
        let decoded = try JSONDecoder().decode(JWK.self, from: Data(written))
        #expect(decoded == jwk)
    }

    @Test func missingKtyIsADecodingError() {
        #expect(throws: DecodingError.self) { try decode(#"{"crv":"P-256"}"#) }
    }

    @Test func rfcKeysBuildPublicKeys() throws {
        let rsa = try PublicKey(jwk: rfcRSAKey())
        #expect(rsa.kind == .rsa(bits: 2048))
        #expect(rsa.algorithm == .rs256)
        let ec = try PublicKey(jwk: rfcECKey())
        #expect(ec.kind == .ecP256)
        #expect(ec.algorithm == .es256)
    }

    @Test func rsaKeyUnder2048BitsIsRefused() throws {
        let jwk = JWK(kty: "RSA", n: CryptoTestVectors.rsa1024Modulus, e: "AQAB")
        let error = #expect(throws: CryptoError.self) { try PublicKey(jwk: jwk) }
        #expect(error?.detail.contains("1024 bits") == true)
    }

    @Test func rsaExponentOneOrEvenIsRefused() throws {
        var jwk = try rfcRSAKey()
        for exponent in ["AQ", "Ag", "AAE", ""] {
            jwk.e = exponent
            #expect(throws: CryptoError.self) { try PublicKey(jwk: jwk) }
        }
    }

    @Test func rsaKeyWithoutModulusIsRefused() throws {
        #expect(throws: CryptoError.self) { try PublicKey(jwk: JWK(kty: "RSA", e: "AQAB")) }
        #expect(throws: CryptoError.self) { try PublicKey(jwk: JWK(kty: "RSA", n: "not+base64url", e: "AQAB")) }
    }

    /// Flipping the last bit of y moves the point off P-256; importing it would allow invalid-curve attacks.
    @Test func ecPointNotOnCurveIsRefused() throws {
        var jwk = try rfcECKey()
        var y = try #require(jwk.y.flatMap(Base64.urlDecode))
        y[31] ^= 0x01
        jwk.y = Base64.urlEncode(y)
        #expect(throws: CryptoError.self) { try PublicKey(jwk: jwk) }
    }

    @Test func ecCoordinatesMustBe32Bytes() throws {
        var jwk = try rfcECKey()
        let x = try #require(jwk.x.flatMap(Base64.urlDecode))
        jwk.x = Base64.urlEncode(Array(x.dropFirst()))
        #expect(throws: CryptoError.self) { try PublicKey(jwk: jwk) }
        jwk.x = Base64.urlEncode([0] + x)
        #expect(throws: CryptoError.self) { try PublicKey(jwk: jwk) }
    }

    @Test func otherCurvesAndKeyTypesAreRefused() throws {
        var jwk = try rfcECKey()
        jwk.crv = "P-384"
        #expect(throws: CryptoError.self) { try PublicKey(jwk: jwk) }
        #expect(throws: CryptoError.self) { try PublicKey(jwk: JWK(kty: "oct")) }
        #expect(throws: CryptoError.self) {
            try PublicKey(jwk: JWK(kty: "OKP", crv: "Ed25519", x: "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"))
        }
    }

    @Test func declaredAlgorithmMustMatchKeyType() throws {
        var rsa = try rfcRSAKey()
        rsa.alg = "ES256"
        #expect(throws: CryptoError.self) { try PublicKey(jwk: rsa) }
        rsa.alg = "RS512"
        #expect(throws: CryptoError.self) { try PublicKey(jwk: rsa) }
        rsa.alg = "RS256"
        #expect(try PublicKey(jwk: rsa).algorithm == .rs256)
        var ec = try rfcECKey()
        ec.alg = "RS256"
        #expect(throws: CryptoError.self) { try PublicKey(jwk: ec) }
    }

    @Test func encryptionKeysAreRefused() throws {
        var ec = try rfcECKey()
        ec.use = "enc"
        #expect(throws: CryptoError.self) { try PublicKey(jwk: ec) }
        ec.use = "sig"
        #expect(try PublicKey(jwk: ec).kind == .ecP256)
    }

    @Test func keyIDIsKept() throws {
        var ec = try rfcECKey()
        ec.kid = "e9bc097a-ce51-4036-9562-d2ade882db0d"
        #expect(try PublicKey(jwk: ec).keyID == "e9bc097a-ce51-4036-9562-d2ade882db0d")
    }
}
