/// Why a bearer token is not one of this daemon's live ID tokens; each case is one refusal the caller may tell apart
/// (all are `401` at the endpoints). No case carries any part of the token: not its claims, `kid` or `alg` either,
/// which the sender chose.
package enum BearerTokenError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not a compact JWS with a JSON header and claims object, or a claim of the wrong type; `reason` is the
    /// daemon's own text.
    case malformed(reason: String)
    /// The header's `alg` is not `ES256`, or it names a key source (`jku`, `jwk`, `x5u`, `x5c`) or `crit`.
    case algorithmNotAllowed
    /// No `kid`, or one that no key of the ring has (a removed key among them).
    case unknownKey
    /// The signature does not verify under the key the `kid` names.
    case invalidSignature
    /// `iss` is not this daemon's issuer.
    case wrongIssuer
    /// `aud` is not this daemon's audience.
    case wrongAudience
    /// `exp` has passed.
    case expired
    /// `iat` is later than now by more than the allowed skew.
    case issuedInFuture
    /// A claim every token of the daemon has is missing.
    case missingClaim(String)

    package var description: String {
        switch self {
        case .malformed(let reason): "the bearer token is malformed: \(reason)"
        case .algorithmNotAllowed: "the bearer token is not signed with ES256 by a key of this daemon"
        case .unknownKey: "the bearer token names no key this daemon publishes"
        case .invalidSignature: "the bearer token's signature does not verify"
        case .wrongIssuer: "the bearer token was issued by someone else"
        case .wrongAudience: "the bearer token is for another audience"
        case .expired: "the bearer token has expired"
        case .issuedInFuture: "the bearer token is issued in the future"
        case .missingClaim(let name): "the bearer token has no \(name) claim"
        }
    }
}
