import AuthHandlerCrypto
import Foundation

/// What an ID token must say to be accepted for one sign-in (OIDC Core §3.1.3.7).
package struct IDTokenExpectations: Sendable {
    /// How `iss` is matched: the provider's `ExpectedIssuer`, one rule for the validator and the flow.
    package typealias IssuerRule = ExpectedIssuer

    /// Largest clock skew accepted; larger configured values are reduced to it.
    package static let maximumClockSkew: TimeInterval = 600

    package var issuer: IssuerRule
    /// The client id: `aud` must contain it, and `azp` must equal it when present or when `aud` has several.
    package var clientID: String
    /// The nonce this sign-in sent; when set, the token must carry it (compared in constant time).
    package var nonce: String?
    /// The algorithms pinned for this provider; anything else is refused before a key is looked up.
    package var allowedAlgorithms: [JWSAlgorithm]
    /// Accept `alg: none` tokens (a provider option for test IdPs only; off by default).
    package var allowsUnsigned: Bool
    /// Where the provider's keys are published.
    package var jwksURI: String
    /// The time the token is judged at.
    package var now: Date
    /// Allowed difference between our clock and the IdP's, within `0...maximumClockSkew`.
    package var clockSkew: TimeInterval {
        didSet { clockSkew = Self.bounded(clockSkew) }
    }
    /// The `max_age` the authorization request sent, in seconds; when set, `auth_time` is required.
    package var maxAge: Int?

    package init(
        issuer: IssuerRule, clientID: String, nonce: String?, jwksURI: String, now: Date,
        allowedAlgorithms: [JWSAlgorithm] = [.rs256], allowsUnsigned: Bool = false, clockSkew: TimeInterval = 300,
        maxAge: Int? = nil
    ) {
        self.issuer = issuer
        self.clientID = clientID
        self.nonce = nonce
        self.allowedAlgorithms = allowedAlgorithms
        self.allowsUnsigned = allowsUnsigned
        self.jwksURI = jwksURI
        self.now = now
        self.clockSkew = Self.bounded(clockSkew)
        self.maxAge = maxAge
    }

    /// Exact-issuer convenience.
    package init(
        issuer: String, clientID: String, nonce: String?, jwksURI: String, now: Date,
        allowedAlgorithms: [JWSAlgorithm] = [.rs256], allowsUnsigned: Bool = false, clockSkew: TimeInterval = 300,
        maxAge: Int? = nil
    ) {
        self.init(
            issuer: .exact(issuer), clientID: clientID, nonce: nonce, jwksURI: jwksURI, now: now,
            allowedAlgorithms: allowedAlgorithms, allowsUnsigned: allowsUnsigned, clockSkew: clockSkew,
            maxAge: maxAge)
    }

    private static func bounded(_ skew: TimeInterval) -> TimeInterval {
        guard skew.isFinite else { return maximumClockSkew }
        return min(max(skew, 0), maximumClockSkew)
    }
}
