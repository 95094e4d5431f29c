/// The protected header of a JWS (RFC 7515 §4.1), with the members a validator must look at.
public struct JOSEHeader: Codable, Sendable, Equatable {
    /// `alg`: the signature algorithm name as sent (may be `none` or anything else; validators pin it).
    public var alg: String
    public var kid: String?
    public var typ: String?
    /// `jku`, `x5u`, `jwk`, `x5c`: key sources chosen by the token's sender; a validator refuses them.
    public var jku: String?
    public var x5u: String?
    public var jwk: JWK?
    public var x5c: [String]?
    /// `crit`: extensions the recipient must understand; we understand none.
    public var crit: [String]?

    public init(alg: String, kid: String? = nil, typ: String? = "JWT") {
        self.alg = alg
        self.kid = kid
        self.typ = typ
    }
}
