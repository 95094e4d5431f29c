import Foundation
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerCrypto
@testable import AuthHandlerHTTP

/// `SigningKey`: PEM formats in and out, generation, and the keys it refuses.
struct CryptoSigningKeyTests {
    private let rfcRSAJWK = try? JSONDecoder().decode(JWK.self, from: Data(CryptoTestVectors.rs256JWKJSON.utf8))
    private let rfcECJWK = try? JSONDecoder().decode(JWK.self, from: Data(CryptoTestVectors.es256JWKJSON.utf8))

    @Test func loadsRSAPrivateKeyInPKCS1AndPKCS8() throws {
        for pem in [CryptoTestVectors.rs256PKCS1PEM, CryptoTestVectors.rs256PKCS8PEM] {
            let key = try SigningKey(pem: pem, keyID: "2010-12-29")
            #expect(key.algorithm == .rs256)
            #expect(key.publicKey.kind == .rsa(bits: 2048))
            #expect(key.publicKey.jwk.n == rfcRSAJWK?.n)
            #expect(key.publicKey.jwk.e == "AQAB")
            #expect(key.publicKey.jwk.kid == "2010-12-29")
        }
    }

    @Test func loadsECPrivateKeyInSEC1AndPKCS8() throws {
        for pem in [CryptoTestVectors.es256SEC1PEM, CryptoTestVectors.es256PKCS8PEM] {
            let key = try SigningKey(pem: pem)
            #expect(key.algorithm == .es256)
            #expect(key.publicKey.jwk.x == rfcECJWK?.x)
            #expect(key.publicKey.jwk.y == rfcECJWK?.y)
        }
    }

    @Test func exportedJWKIsComplete() throws {
        let ec = try SigningKey(pem: CryptoTestVectors.es256SEC1PEM, keyID: "k1").publicKey.jwk
        #expect(
            ec
                == JWK(
                    kty: "EC", kid: "k1", alg: "ES256", use: "sig", crv: "P-256",
                    x: "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", y: "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"))
        let rsa = try SigningKey(pem: CryptoTestVectors.rs256PKCS1PEM).publicKey.jwk
        #expect(rsa.kty == "RSA" && rsa.alg == "RS256" && rsa.use == "sig" && rsa.kid == nil)
        #expect(rsa.crv == nil && rsa.x == nil && rsa.y == nil)
    }

    /// `openssl pkey` wrote the RFC keys' PKCS #8 form; our export must be byte-identical to it.
    @Test func exportsPKCS8IdenticalToOpenSSLCommandLine() throws {
        #expect(
            try SigningKey(pem: CryptoTestVectors.rs256PKCS1PEM).pkcs8PEM()
                == CryptoTestVectors.rs256PKCS8PEM + "\n")
        #expect(
            try SigningKey(pem: CryptoTestVectors.es256SEC1PEM).pkcs8PEM()
                == CryptoTestVectors.es256PKCS8PEM + "\n")
    }

    @Test(arguments: JWSAlgorithm.allCases)
    func generatedKeySurvivesPEMRoundTrip(_ algorithm: JWSAlgorithm) throws {
        let original = try SigningKey.generate(algorithm, keyID: "fake-idp-1")
        let pem = try original.pkcs8PEM()
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        #expect(pem.hasSuffix("-----END PRIVATE KEY-----\n"))
        let reloaded = try SigningKey(pem: pem, keyID: "fake-idp-1")
        #expect(reloaded.publicKey.jwk == original.publicKey.jwk)

        let message = Array("round trip".utf8)
        let signature = try reloaded.sign(algorithm, message: message)
        #expect(original.publicKey.verify(algorithm, signature: signature, message: message))
    }

    @Test func generatedKeysAreDistinctAndTheRightSize() throws {
        let first = try SigningKey.generate(.rs256)
        let second = try SigningKey.generate(.rs256)
        #expect(first.publicKey.kind == .rsa(bits: 2048))
        #expect(first.publicKey.jwk.n != second.publicKey.jwk.n)
        let ec = try SigningKey.generate(.es256)
        #expect(ec.publicKey.kind == .ecP256)
        #expect(Base64.urlDecode(ec.publicKey.jwk.x ?? "")?.count == 32)
    }

    @Test func rsaKeyOf1024BitsIsRefused() {
        let error = #expect(throws: CryptoError.self) { try SigningKey(pem: CryptoTestVectors.rsa1024PEM) }
        #expect(error?.detail.contains("1024 bits") == true)
    }

    @Test func unsupportedKeyTypesAreRefused() {
        #expect(throws: CryptoError.self) { try SigningKey(pem: CryptoTestVectors.ed25519PEM) }
        #expect(throws: CryptoError.self) { try SigningKey(pem: CryptoTestVectors.p384PEM) }
    }

    /// Without a refusing passphrase callback OpenSSL would prompt on the terminal and block the daemon.
    @Test func encryptedKeyFailsWithoutPrompting() {
        #expect(throws: CryptoError.self) { try SigningKey(pem: CryptoTestVectors.encryptedPEM) }
    }

    @Test func malformedPEMIsRefusedWithOpenSSLDetail() {
        for pem in ["", "not a key", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"] {
            let error = #expect(throws: CryptoError.self) { try SigningKey(pem: pem) }
            #expect(error?.operation == "PEM_read_bio_PrivateKey")
            #expect(error?.detail.isEmpty == false)
        }
    }

    /// A public key PEM is not a signing key.
    @Test func publicKeyPEMIsRefused() {
        let pem = """
            -----BEGIN PUBLIC KEY-----
            MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEf83OJ3D2xF1Bg8vub9tLe1gHMzV7
            6e8Tus9uPHvRVEXH8UTNG72bfocs3+257rn0s2ldbqkLJK2KRiMohYjlrQ==
            -----END PUBLIC KEY-----
            """
        #expect(throws: CryptoError.self) { try SigningKey(pem: pem) }
    }
}
