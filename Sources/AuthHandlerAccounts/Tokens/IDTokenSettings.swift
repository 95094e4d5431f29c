/// What every ID token of one daemon says about who issued it and for whom (issue 25 §1, §4): its issuer, audience
/// and lifetime, and whether the provider user ids go into `firebase.identities`.
package struct IDTokenSettings: Sendable, Equatable {
    /// The path under `publicURL` that is the issuer, and under which discovery and the JWKS are served.
    package static let issuerPath = "/__/auth"
    /// The default lifetime, Firebase's hour (`idTokenTTLSeconds`).
    package static let defaultLifetimeSeconds = 3600

    /// `iss`: `publicURL` + `/__/auth`.
    package let issuer: String
    /// `aud`: the config's `audience`, by default `publicURL`.
    package let audience: String
    /// `exp` - `iat`, in seconds.
    package let lifetimeSeconds: Int
    /// `claims.identities`: false leaves `firebase.identities` out of every token.
    package let includesIdentities: Bool

    /// The settings for a daemon at `publicURL` (no trailing `/`, as the config keeps it).
    package init(
        publicURL: String, audience: String? = nil, lifetimeSeconds: Int = defaultLifetimeSeconds,
        includesIdentities: Bool = true
    ) {
        issuer = publicURL + Self.issuerPath
        self.audience = audience ?? publicURL
        self.lifetimeSeconds = lifetimeSeconds
        self.includesIdentities = includesIdentities
    }

    /// Where the public keys are served: `GET /__/auth/jwks.json`.
    package var jwksURI: String { issuer + "/jwks.json" }

    /// Where the discovery document is served, as OpenID Connect Discovery 1.0 §4 derives it from the issuer.
    package var discoveryURI: String { issuer + "/.well-known/openid-configuration" }

    /// The refresh endpoint, `POST /__/auth/token` (RFC 6749 §6).
    package var tokenEndpoint: String { issuer + "/token" }
}
