import Foundation
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerCrypto

/// RS256 and ES256 signing and verification against RFC 7515 Appendix A and generated keys.
struct CryptoJWSSignatureTests {
    private func key(_ json: String) throws -> PublicKey {
        try PublicKey(jwk: JSONDecoder().decode(JWK.self, from: Data(json.utf8)))
    }

    @Test func verifiesRFC7515AppendixA2() throws {
        let (input, signature) = CryptoTestVectors.split(CryptoTestVectors.rs256JWS)
        #expect(signature.count == 256)
        #expect(try key(CryptoTestVectors.rs256JWKJSON).verify(.rs256, signature: signature, message: input))
    }

    @Test func verifiesRFC7515AppendixA3() throws {
        let (input, signature) = CryptoTestVectors.split(CryptoTestVectors.es256JWS)
        #expect(signature.count == 64)
        #expect(try key(CryptoTestVectors.es256JWKJSON).verify(.es256, signature: signature, message: input))
    }

    /// RSASSA-PKCS1-v1_5 is deterministic, so signing A.2's input with A.2's key must give the RFC's bytes.
    @Test func signingReproducesRFC7515AppendixA2Signature() throws {
        let (input, signature) = CryptoTestVectors.split(CryptoTestVectors.rs256JWS)
        let signingKey = try SigningKey(pem: CryptoTestVectors.rs256PKCS1PEM)
        #expect(try signingKey.sign(.rs256, message: input) == signature)
    }

    @Test func tamperedMessageIsRefused() throws {
        for (jws, json, algorithm) in [
            (CryptoTestVectors.rs256JWS, CryptoTestVectors.rs256JWKJSON, JWSAlgorithm.rs256),
            (CryptoTestVectors.es256JWS, CryptoTestVectors.es256JWKJSON, JWSAlgorithm.es256),
        ] {
            var (input, signature) = CryptoTestVectors.split(jws)
            let publicKey = try key(json)
            input[input.count - 1] ^= 0x01
            #expect(!publicKey.verify(algorithm, signature: signature, message: input))
        }
    }

    @Test func tamperedSignatureIsRefused() throws {
        for (jws, json, algorithm) in [
            (CryptoTestVectors.rs256JWS, CryptoTestVectors.rs256JWKJSON, JWSAlgorithm.rs256),
            (CryptoTestVectors.es256JWS, CryptoTestVectors.es256JWKJSON, JWSAlgorithm.es256),
        ] {
            let (input, signature) = CryptoTestVectors.split(jws)
            let publicKey = try key(json)
            for index in [0, signature.count / 2, signature.count - 1] {
                var tampered = signature
                tampered[index] ^= 0x01
                #expect(!publicKey.verify(algorithm, signature: tampered, message: input))
            }
        }
    }

    /// RFC 7518 §3.4: an ES256 signature is exactly 64 bytes; DER or trimmed forms are not accepted.
    @Test func es256SignatureOfWrongLengthIsRefused() throws {
        let (input, signature) = CryptoTestVectors.split(CryptoTestVectors.es256JWS)
        let publicKey = try key(CryptoTestVectors.es256JWKJSON)
        #expect(!publicKey.verify(.es256, signature: Array(signature.dropLast()), message: input))
        #expect(!publicKey.verify(.es256, signature: signature + [0], message: input))
        #expect(!publicKey.verify(.es256, signature: [UInt8](), message: input))
        let der = try #require(ECDSASignatureEncoding.der(fromRaw: signature, coordinateLength: 32))
        #expect(!publicKey.verify(.es256, signature: der, message: input))
    }

    @Test func rs256SignatureOfWrongLengthIsRefused() throws {
        let (input, signature) = CryptoTestVectors.split(CryptoTestVectors.rs256JWS)
        let publicKey = try key(CryptoTestVectors.rs256JWKJSON)
        #expect(!publicKey.verify(.rs256, signature: Array(signature.dropLast()), message: input))
        #expect(!publicKey.verify(.rs256, signature: [0] + signature, message: input))
        #expect(!publicKey.verify(.rs256, signature: [UInt8](), message: input))
    }

    @Test func algorithmMustMatchKeyType() throws {
        let rsa = try key(CryptoTestVectors.rs256JWKJSON)
        let ec = try key(CryptoTestVectors.es256JWKJSON)
        let (rsaInput, rsaSignature) = CryptoTestVectors.split(CryptoTestVectors.rs256JWS)
        let (ecInput, ecSignature) = CryptoTestVectors.split(CryptoTestVectors.es256JWS)
        #expect(!rsa.verify(.es256, signature: rsaSignature, message: rsaInput))
        #expect(!rsa.verify(.es256, signature: ecSignature, message: ecInput))
        #expect(!ec.verify(.rs256, signature: ecSignature, message: ecInput))
        #expect(!ec.verify(.rs256, signature: rsaSignature, message: rsaInput))

        let rsaSigner = try SigningKey(pem: CryptoTestVectors.rs256PKCS8PEM)
        let ecSigner = try SigningKey(pem: CryptoTestVectors.es256PKCS8PEM)
        #expect(throws: CryptoError.self) { try rsaSigner.sign(.es256, message: rsaInput) }
        #expect(throws: CryptoError.self) { try ecSigner.sign(.rs256, message: ecInput) }
    }

    @Test(arguments: JWSAlgorithm.allCases)
    func generatedKeySignsAndVerifies(_ algorithm: JWSAlgorithm) throws {
        let signingKey = try SigningKey.generate(algorithm)
        #expect(signingKey.algorithm == algorithm)
        let message = Array("header.payload".utf8)
        let signature = try signingKey.sign(algorithm, message: message)
        #expect(signature.count == (algorithm == .rs256 ? 256 : 64))
        #expect(signingKey.publicKey.verify(algorithm, signature: signature, message: message))
        #expect(!signingKey.publicKey.verify(algorithm, signature: signature, message: Array("header.payloaD".utf8)))

        // The published JWK verifies too, as a relying party would use it.
        let published = try PublicKey(jwk: signingKey.publicKey.jwk)
        #expect(published.verify(algorithm, signature: signature, message: message))
    }

    @Test(arguments: JWSAlgorithm.allCases)
    func emptyMessageSignsAndVerifies(_ algorithm: JWSAlgorithm) throws {
        let signingKey = try SigningKey.generate(algorithm)
        let signature = try signingKey.sign(algorithm, message: [UInt8]())
        #expect(signingKey.publicKey.verify(algorithm, signature: signature, message: [UInt8]()))
    }

    /// Many ES256 signatures: about 1 in 128 has an `r` or `s` with a leading zero byte, which must be
    /// kept in the fixed-width form (RFC 7518 §3.4).
    @Test func es256RoundTripsAcrossManySignatures() throws {
        let signingKey = try SigningKey.generate(.es256)
        for counter in 0..<300 {
            let message = Array("message \(counter)".utf8)
            let signature = try signingKey.sign(.es256, message: message)
            #expect(signature.count == 64)
            #expect(signingKey.publicKey.verify(.es256, signature: signature, message: message))
        }
    }

    /// A signature made by a different key of the same type does not verify.
    @Test(arguments: JWSAlgorithm.allCases)
    func otherKeysSignatureIsRefused(_ algorithm: JWSAlgorithm) throws {
        let signer = try SigningKey.generate(algorithm)
        let other = try SigningKey.generate(algorithm)
        let message = Array("m".utf8)
        let signature = try signer.sign(algorithm, message: message)
        #expect(!other.publicKey.verify(algorithm, signature: signature, message: message))
    }

    /// Keys are shared across threads (the `@unchecked Sendable` claim); concurrent use must agree.
    @Test func concurrentVerificationWithOneKey() async throws {
        let publicKey = try key(CryptoTestVectors.es256JWKJSON)
        let (input, signature) = CryptoTestVectors.split(CryptoTestVectors.es256JWS)
        let results = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<64 {
                group.addTask {
                    var message = input
                    if index.isMultiple(of: 2) { message[0] ^= 0x01 }
                    return publicKey.verify(.es256, signature: signature, message: message) == !index.isMultiple(of: 2)
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 64 && results.allSatisfy { $0 })
    }
}
