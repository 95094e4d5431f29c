import AuthHandlerCrypto
import AuthHandlerHTTP

extension JWK: JSONWritable {
    /// The key as a JWKS publishes it (RFC 7517 §4): the members that are set, none as `null`.
    package var json: JSONValue {
        var members: [String: JSONValue] = ["kty": .string(kty)]
        let optionals: [(String, String?)] = [
            ("kid", kid), ("alg", alg), ("use", use), ("n", n), ("e", e), ("crv", crv), ("x", x), ("y", y),
        ]
        for case (let name, let value?) in optionals { members[name] = .string(value) }
        return .object(members)
    }
}
