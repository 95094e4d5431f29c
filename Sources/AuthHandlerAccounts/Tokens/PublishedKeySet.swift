import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerProtocols

/// `GET /__/auth/jwks.json` (issue 25 §4): every key of the ring as a public JWK (RFC 7517 §5), so that an API
/// verifies the daemon's ID tokens with any JOSE library.
package struct PublishedKeySet: Sendable, JSONWritable {
    /// `Cache-Control: max-age` for the document, the upper bound of an hour. A new key is published (as
    /// `nextSigningKey`) at least this long before it signs, so that no cache still holds a set without it.
    package static let maxAgeSeconds = 3600

    /// The public keys, current first.
    package let keys: [JWK]

    package init(ring: SigningKeyRing) {
        keys = ring.published.map { key in
            // Each member RFC 7518 §6.2.1 and RFC 7517 §4 define for it, `use` and `alg` pinned.
            var jwk = key.publicKey.jwk
            jwk.kid = key.keyID
            jwk.use = "sig"
            jwk.alg = JWSAlgorithm.es256.rawValue
            return jwk
        }
    }

    /// `{"keys": [{"kty": "EC", "crv": "P-256", "x", "y", "kid", "use": "sig", "alg": "ES256"}, ...]}`.
    package var json: JSONValue { .object(["keys": .array(keys.map(\.json))]) }
}
