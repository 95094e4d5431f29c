/// The JWS signature algorithms the handler signs and verifies with (RFC 7518 §3.1 names).
package enum JWSAlgorithm: String, Sendable, Codable, CaseIterable {
    /// RSASSA-PKCS1-v1_5 with SHA-256 (RFC 7518 §3.3); keys must be at least 2048 bits.
    case rs256 = "RS256"
    /// ECDSA on P-256 with SHA-256 (RFC 7518 §3.4); signatures are the raw 64-byte `r || s`.
    case es256 = "ES256"

    /// The JWK `kty` a key must have to be used with this algorithm.
    package var keyType: String {
        switch self {
        case .rs256: "RSA"
        case .es256: "EC"
        }
    }
}
