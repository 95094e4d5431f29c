import COpenSSL
import Foundation

/// A private key that signs JWS (RS256 or ES256): loaded from PEM, or generated for the fake IdP.
package struct SigningKey: Sendable {
    /// The public half, for publishing as a JWK and for verifying this key's signatures.
    package let publicKey: PublicKey
    let key: EVPKey

    /// The JWS algorithm this key signs with: RS256 for RSA, ES256 for P-256.
    package var algorithm: JWSAlgorithm { publicKey.algorithm }

    /// Loads an unencrypted PEM private key: PKCS#8 `BEGIN PRIVATE KEY`, `BEGIN RSA PRIVATE KEY`
    /// or `BEGIN EC PRIVATE KEY`. Only RSA of at least 2048 bits and EC P-256 are accepted.
    package init(pem: String, keyID: String? = nil) throws(CryptoError) {
        try self.init(key: EVPKey.privateKey(pem: Array(pem.utf8)), keyID: keyID)
    }

    /// A fresh key for `algorithm`: RSA 2048 for RS256, P-256 for ES256.
    package static func generate(_ algorithm: JWSAlgorithm, keyID: String? = nil) throws(CryptoError) -> SigningKey {
        let key: EVPKey
        switch algorithm {
        case .rs256:
            key = try EVPKey.generate(type: .rsa) {
                EVP_PKEY_CTX_set_rsa_keygen_bits($0, Int32(PublicKey.minimumRSABits))
            }
        case .es256:
            key = try EVPKey.generate(type: .ec) { EVP_PKEY_CTX_set_group_name($0, OpenSSLName.prime256v1.cString) }
        }
        return try SigningKey(key: key, keyID: keyID)
    }

    private init(key: EVPKey, keyID: String?) throws(CryptoError) {
        let jwk: JWK
        if key.isA("RSA") {
            guard key.bits >= PublicKey.minimumRSABits, key.bits <= PublicKey.maximumRSABits else {
                throw CryptoError(
                    operation: "SigningKey",
                    detail: "RSA key has \(key.bits) bits; RS256 needs \(PublicKey.minimumRSABits) to "
                        + "\(PublicKey.maximumRSABits)")
            }
            jwk = JWK(
                kty: "RSA", kid: keyID, alg: JWSAlgorithm.rs256.rawValue, use: "sig",
                n: Base64.urlEncode(try key.integerParameter(OSSL_PKEY_PARAM_RSA_N)),
                e: Base64.urlEncode(try key.integerParameter(OSSL_PKEY_PARAM_RSA_E)))
        } else if key.isA("EC"), key.groupName == PublicKey.p256GroupName {
            let width = PublicKey.p256CoordinateLength
            jwk = JWK(
                kty: "EC", kid: keyID, alg: JWSAlgorithm.es256.rawValue, use: "sig", crv: "P-256",
                x: Base64.urlEncode(try key.integerParameter(OSSL_PKEY_PARAM_EC_PUB_X, width: width)),
                y: Base64.urlEncode(try key.integerParameter(OSSL_PKEY_PARAM_EC_PUB_Y, width: width)))
        } else {
            throw CryptoError(
                operation: "SigningKey", detail: "unsupported private key type; use RSA (2048+ bits) or EC P-256")
        }
        // The public key is rebuilt from the exported JWK so it holds no private material.
        self.publicKey = try PublicKey(jwk: jwk)
        self.key = key
    }

    /// The JWS signature of `message`: PKCS #1 v1.5 for RS256, the raw 64-byte `r || s` for ES256.
    ///
    /// Throws when `algorithm` does not match the key type.
    package func sign(_ algorithm: JWSAlgorithm, message: some ContiguousBytes) throws(CryptoError) -> [UInt8] {
        guard algorithm == self.algorithm else {
            throw CryptoError(
                operation: "sign",
                detail:
                    "\(algorithm.rawValue) needs a \(algorithm.keyType) key; this is a \(self.algorithm.keyType) key")
        }
        switch algorithm {
        case .rs256:
            return try key.signSHA256(message.withUnsafeBytes { [UInt8]($0) })
        case .es256:
            let signature = try key.signDigestEC(try SHA256.hash(message))
            return try ECDSASignatureEncoding.raw(fromDER: signature, coordinateLength: PublicKey.p256CoordinateLength)
        }
    }

    /// The private key as unencrypted PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`).
    package func pkcs8PEM() throws(CryptoError) -> String {
        try key.pkcs8PEM()
    }
}
