import AuthHandlerCrypto
import AuthHandlerHTTP

/// The JWK SHA-256 thumbprint of RFC 7638: the `kid` of an accounts signing key, so that the id is a function of the
/// key itself and two instances holding one key publish one `kid`.
package enum JWKThumbprint {
    /// base64url (no padding) of SHA-256 over the key's required members (RFC 7638 §3.2: `crv`, `kty`, `x`, `y` for
    /// EC; `e`, `kty`, `n` for RSA) as JSON in lexicographic order without whitespace (§3.3).
    package static func sha256(of jwk: JWK) throws(CryptoError) -> String {
        let required: [(String, String?)]
        switch jwk.kty {
        case "EC": required = [("crv", jwk.crv), ("x", jwk.x), ("y", jwk.y)]
        case "RSA": required = [("e", jwk.e), ("n", jwk.n)]
        default:
            throw CryptoError(operation: "JWK thumbprint", detail: "no RFC 7638 members known for kty \(jwk.kty)")
        }
        var members: [String: JSONValue] = ["kty": .string(jwk.kty)]
        for (name, value) in required {
            guard let value else {
                throw CryptoError(operation: "JWK thumbprint", detail: "the \(jwk.kty) key has no \"\(name)\"")
            }
            members[name] = .string(value)
        }
        // The member values are base64url and names ASCII, so the one serializer's output is RFC 7638's exact form.
        return Base64.urlEncode(try SHA256.hash(JSONValue.object(members).serialized(sortingKeys: true)))
    }
}
