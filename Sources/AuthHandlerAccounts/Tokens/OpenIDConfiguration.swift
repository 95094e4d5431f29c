import AuthHandlerCrypto
import AuthHandlerHTTP

/// `GET /__/auth/.well-known/openid-configuration` (OpenID Connect Discovery 1.0 §3-4): what an API needs to verify
/// the daemon's ID tokens from the issuer alone.
///
/// It is the metadata of a token issuer, not of an OpenID Provider that relying parties send through an OAuth
/// authorization flow: sign-in starts at `/__/auth/handler` with the daemon's own parameters (HTTP-API.md §3.1),
/// which is no OAuth 2 authorization endpoint. So `authorization_endpoint`, REQUIRED by Discovery §3 for an OP, is
/// left out — as Firebase's own issuer (`securetoken.google.com/PROJECT`) leaves it out — and an RP library that needs
/// it fails at discovery rather than sending users somewhere that cannot answer it (docs/ACCOUNTS.md "ID tokens and
/// keys").
package struct OpenIDConfiguration: Sendable, JSONWritable {
    /// The claims the daemon writes, for `claims_supported` (Discovery §3, RECOMMENDED).
    static let claimsSupported = [
        "iss", "aud", "sub", "user_id", "iat", "exp", "auth_time", "sid", "email", "email_verified", "name", "picture",
        "firebase",
    ]

    package let settings: IDTokenSettings

    package init(settings: IDTokenSettings) {
        self.settings = settings
    }

    package var json: JSONValue {
        .object([
            "issuer": .string(settings.issuer),
            "jwks_uri": .string(settings.jwksURI),
            "id_token_signing_alg_values_supported": .array([.string(JWSAlgorithm.es256.rawValue)]),
            // The tokens the daemon answers are ID tokens (Firebase's issuer says the same).
            "response_types_supported": .array([.string("id_token")]),
            // `sub` is the user's localId, the same for every app of the daemon (OIDC Core §8).
            "subject_types_supported": .array([.string("public")]),
            // `POST /__/auth/token` takes only the refresh grant (RFC 6749 §6), from public clients.
            "token_endpoint": .string(settings.tokenEndpoint),
            "grant_types_supported": .array([.string("refresh_token")]),
            "token_endpoint_auth_methods_supported": .array([.string("none")]),
            "claims_supported": .array(Self.claimsSupported.map(JSONValue.string)),
        ])
    }
}
