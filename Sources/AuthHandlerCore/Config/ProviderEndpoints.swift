import Foundation

/// Endpoint overrides for a provider: `endpoints` in a provider's config.
package struct ProviderEndpoints: Sendable, Hashable {
    /// OAuth 1.0a: the temporary-credential (request token) endpoint.
    package var requestToken: URL?
    /// OAuth 1.0a: where the user authorizes the request token.
    package var authorize: URL?
    /// OAuth 1.0a: the token (access token) endpoint.
    package var accessToken: URL?
    /// OAuth 1.0a: the profile endpoint (Twitter's `account/verify_credentials.json`).
    package var profile: URL?
    /// OAuth 2 / OIDC: the authorization endpoint.
    package var authorization: URL?
    /// OAuth 2 / OIDC: the token endpoint.
    package var token: URL?
    /// OAuth 2 / OIDC: the user-info endpoint.
    package var userInfo: URL?
    /// OIDC: the JSON Web Key Set that signs id_tokens.
    package var jwks: URL?

    /// Creates endpoints; every one is optional.
    package init(
        requestToken: URL? = nil, authorize: URL? = nil, accessToken: URL? = nil, profile: URL? = nil,
        authorization: URL? = nil, token: URL? = nil, userInfo: URL? = nil, jwks: URL? = nil
    ) {
        self.requestToken = requestToken
        self.authorize = authorize
        self.accessToken = accessToken
        self.profile = profile
        self.authorization = authorization
        self.token = token
        self.userInfo = userInfo
        self.jwks = jwks
    }

    /// The endpoint keys that apply to `protocolKind`.
    package static func keys(for protocolKind: ProviderConfig.ProtocolKind) -> [String] {
        switch protocolKind {
        case .oauth1: ["requestToken", "authorize", "accessToken", "profile"]
        case .oauth2, .oidc: ["authorization", "token", "userInfo", "jwks"]
        }
    }

    /// Whether no endpoint is set.
    package var isEmpty: Bool { self == ProviderEndpoints() }

    /// The endpoint named by its JSON key, nil when unset or unknown.
    package func url(forKey key: String) -> URL? {
        switch key {
        case "requestToken": requestToken
        case "authorize": authorize
        case "accessToken": accessToken
        case "profile": profile
        case "authorization": authorization
        case "token": token
        case "userInfo": userInfo
        case "jwks": jwks
        default: nil
        }
    }

    /// Sets the endpoint named by its JSON key; unknown keys are ignored.
    mutating func set(_ key: String, to url: URL) {
        switch key {
        case "requestToken": requestToken = url
        case "authorize": authorize = url
        case "accessToken": accessToken = url
        case "profile": profile = url
        case "authorization": authorization = url
        case "token": token = url
        case "userInfo": userInfo = url
        case "jwks": jwks = url
        default: break
        }
    }
}
