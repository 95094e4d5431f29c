import COpenSSL
import Foundation

/// A public key that verifies JWS signatures (RS256 or ES256), built from a JWK.
package struct PublicKey: Sendable {
    /// The key's type, which fixes the one JWS algorithm it verifies.
    package enum Kind: Sendable, Hashable {
        /// RSA with a modulus of `bits` bits (at least `PublicKey.minimumRSABits`).
        case rsa(bits: Int)
        /// ECDSA on NIST P-256 (`secp256r1`, OpenSSL's `prime256v1`).
        case ecP256
    }

    /// Smallest RSA modulus accepted: RFC 7518 §3.3 requires 2048 bits or more for RS256.
    package static let minimumRSABits = 2048
    /// Largest RSA modulus accepted, OpenSSL's own `OPENSSL_RSA_MAX_MODULUS_BITS`.
    static let maximumRSABits = 16384
    /// Coordinate (and ES256 `r`/`s`) length in bytes on P-256.
    static let p256CoordinateLength = 32
    /// OpenSSL's name for P-256.
    static let p256GroupName = "prime256v1"

    /// RSA or EC P-256.
    package let kind: Kind
    /// The key as a JWK: the one it was built from, or the public half of a `SigningKey`.
    package let jwk: JWK
    let key: EVPKey

    /// The JWK `kid`, when there is one.
    package var keyID: String? { jwk.kid }

    /// The JWS algorithm this key verifies: RS256 for RSA, ES256 for P-256.
    package var algorithm: JWSAlgorithm {
        switch kind {
        case .rsa: .rs256
        case .ecP256: .es256
        }
    }

    /// Builds the key from a JWK; throws for anything this handler must not verify with.
    ///
    /// Refused: a `kty` other than RSA or EC, a curve other than P-256, an RSA modulus under 2048 bits,
    /// an RSA exponent that is even or 1, EC coordinates that are not exactly 32 bytes or not a point
    /// on the curve, `use` other than `"sig"`, and an `alg` that does not match the key type. A JWKS
    /// loader should skip such keys rather than fail the whole set.
    package init(jwk: JWK) throws(CryptoError) {
        let algorithm: JWSAlgorithm
        switch jwk.kty {
        case "RSA":
            algorithm = .rs256
            (kind, key) = try Self.rsaKey(jwk)
        case "EC":
            algorithm = .es256
            (kind, key) = try Self.ecKey(jwk)
        default:
            throw CryptoError(operation: "JWK", detail: "unsupported kty \"\(jwk.kty)\"; only RSA and EC keys verify")
        }
        if let use = jwk.use, use != "sig" {
            throw CryptoError(
                operation: "JWK", detail: "key has use \"\(use)\", not \"sig\"; it cannot verify signatures")
        }
        if let alg = jwk.alg, alg != algorithm.rawValue {
            throw CryptoError(
                operation: "JWK",
                detail: "key declares alg \"\(alg)\" but a \(jwk.kty) key only verifies \(algorithm.rawValue)")
        }
        self.jwk = jwk
    }

    /// True when `signature` is a valid `algorithm` signature of `message` under this key.
    ///
    /// False, never an error, for anything else: a bad or tampered signature, an ES256 signature that
    /// is not exactly 64 bytes (RFC 7518 §3.4), or an algorithm that does not match the key type.
    package func verify(_ algorithm: JWSAlgorithm, signature: some ContiguousBytes, message: some ContiguousBytes)
        -> Bool
    {
        guard algorithm == self.algorithm else { return false }
        let signature = signature.withUnsafeBytes { [UInt8]($0) }
        let message = message.withUnsafeBytes { [UInt8]($0) }
        switch kind {
        case .rsa:
            return key.verifySHA256(signature: signature, message: message)
        case .ecP256:
            guard let der = ECDSASignatureEncoding.der(fromRaw: signature, coordinateLength: Self.p256CoordinateLength)
            else { return false }
            guard let digest = try? SHA256.hash(message) else { return false }
            return key.verifyDigestEC(signature: der, digest: digest)
        }
    }

    private static func rsaKey(_ jwk: JWK) throws(CryptoError) -> (Kind, EVPKey) {
        guard let n = jwk.n.flatMap(Base64.urlDecode), let e = jwk.e.flatMap(Base64.urlDecode) else {
            throw CryptoError(operation: "JWK", detail: "RSA key needs base64url \"n\" and \"e\"")
        }
        let modulus = Array(n.drop { $0 == 0 })
        let exponent = Array(e.drop { $0 == 0 })
        guard modulus.count <= maximumRSABits / 8, let lastModulusByte = modulus.last, lastModulusByte & 1 == 1 else {
            throw CryptoError(operation: "JWK", detail: "RSA modulus must be odd and at most \(maximumRSABits) bits")
        }
        // e = 1 would make every "signature" equal its own padded digest; an even e is not RSA.
        guard exponent.count <= 64, let lastExponentByte = exponent.last, lastExponentByte & 1 == 1,
            exponent != [1]
        else {
            throw CryptoError(operation: "JWK", detail: "RSA exponent must be odd and greater than 1")
        }
        let key = try EVPKey.rsaPublicKey(modulus: modulus, exponent: exponent)
        guard key.bits >= minimumRSABits else {
            throw CryptoError(
                operation: "JWK", detail: "RSA key has \(key.bits) bits; RS256 needs at least \(minimumRSABits)")
        }
        return (.rsa(bits: key.bits), key)
    }

    private static func ecKey(_ jwk: JWK) throws(CryptoError) -> (Kind, EVPKey) {
        guard jwk.crv == "P-256" else {
            throw CryptoError(operation: "JWK", detail: "unsupported EC curve \"\(jwk.crv ?? "")\"; only P-256 (ES256)")
        }
        guard let x = jwk.x.flatMap(Base64.urlDecode), let y = jwk.y.flatMap(Base64.urlDecode) else {
            throw CryptoError(operation: "JWK", detail: "EC key needs base64url \"x\" and \"y\"")
        }
        // RFC 7518 §6.2.1.2: each coordinate is the full field size, leading zeros kept.
        guard x.count == p256CoordinateLength, y.count == p256CoordinateLength else {
            throw CryptoError(
                operation: "JWK",
                detail:
                    "P-256 coordinates must be 32 bytes each (RFC 7518 §6.2.1.2), got x \(x.count) and y \(y.count)")
        }
        let key = try EVPKey.p256PublicKey(uncompressedPoint: [0x04] + x + y)
        // Import may already refuse a point off the curve; the explicit check makes it certain
        // (invalid-curve attacks: https://www.rfc-editor.org/rfc/rfc8725#section-2.8).
        try key.checkPublicKey()
        return (.ecP256, key)
    }
}
