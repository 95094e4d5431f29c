/// A public JSON Web Key (RFC 7517) as published in an IdP's JWKS; members we do not use are ignored. Written by
/// its `JSONWritable` conformance (AuthHandlerProtocols, `JWK+JSON.swift`).
package struct JWK: Decodable, Sendable, Equatable, Hashable {
    /// Key type: `"RSA"` or `"EC"` (RFC 7518 §6.1).
    package var kty: String
    /// Key ID, matched against a JWS header's `kid`.
    package var kid: String?
    /// The one algorithm this key is meant for, when the publisher says so.
    package var alg: String?
    /// Intended use: `"sig"` or `"enc"`.
    package var use: String?
    /// RSA modulus, base64url big-endian (RFC 7518 §6.3.1.1).
    package var n: String?
    /// RSA public exponent, base64url big-endian (RFC 7518 §6.3.1.2).
    package var e: String?
    /// EC curve name, e.g. `"P-256"` (RFC 7518 §6.2.1.1).
    package var crv: String?
    /// EC x coordinate, base64url, exactly the curve's coordinate length (RFC 7518 §6.2.1.2).
    package var x: String?
    /// EC y coordinate, base64url, exactly the curve's coordinate length (RFC 7518 §6.2.1.3).
    package var y: String?

    package init(
        kty: String, kid: String? = nil, alg: String? = nil, use: String? = nil,
        n: String? = nil, e: String? = nil, crv: String? = nil, x: String? = nil, y: String? = nil
    ) {
        self.kty = kty
        self.kid = kid
        self.alg = alg
        self.use = use
        self.n = n
        self.e = e
        self.crv = crv
        self.x = x
        self.y = y
    }
}
