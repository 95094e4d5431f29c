import AuthHandlerCrypto
import AuthHandlerHTTP

/// The protected header of a JWS (RFC 7515 §4.1), with the members a validator must look at.
package struct JOSEHeader: Decodable, Sendable, Equatable {
    /// `alg`: the signature algorithm name as sent (may be `none` or anything else; validators pin it).
    package var alg: String
    package var kid: String?
    package var typ: String?
    /// `jku`, `x5u`, `jwk`, `x5c`: key sources chosen by the token's sender; a validator refuses them.
    package var jku: String?
    package var x5u: String?
    package var jwk: JWK?
    package var x5c: [String]?
    /// `crit`: extensions the recipient must understand; we understand none.
    package var crit: [String]?

    package init(alg: String, kid: String? = nil, typ: String? = "JWT") {
        self.alg = alg
        self.kid = kid
        self.typ = typ
    }
}

extension JOSEHeader: JSONWritable {
    /// The header as signed (RFC 7515 §4.1): the members that are set, none as `null`.
    package var json: JSONValue {
        var members: [String: JSONValue] = ["alg": .string(alg)]
        let strings: [(String, String?)] = [("kid", kid), ("typ", typ), ("jku", jku), ("x5u", x5u)]
        for case (let name, let value?) in strings { members[name] = .string(value) }
        if let jwk { members["jwk"] = jwk.json }
        if let x5c { members["x5c"] = .array(x5c.map(JSONValue.string)) }
        if let crit { members["crit"] = .array(crit.map(JSONValue.string)) }
        return .object(members)
    }
}
