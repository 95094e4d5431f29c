import Foundation

/// Endpoint overrides for a provider: `endpoints` in a provider's config.
public struct ProviderEndpoints: Sendable, Hashable, Codable {
    /// OAuth 1.0a: the temporary-credential (request token) endpoint.
    public var requestToken: URL?
    /// OAuth 1.0a: where the user authorizes the request token.
    public var authorize: URL?
    /// OAuth 1.0a: the token (access token) endpoint.
    public var accessToken: URL?
    /// OAuth 1.0a: the profile endpoint (Twitter's `account/verify_credentials.json`).
    public var profile: URL?
    /// OAuth 2 / OIDC: the authorization endpoint.
    public var authorization: URL?
    /// OAuth 2 / OIDC: the token endpoint.
    public var token: URL?
    /// OAuth 2 / OIDC: the user-info endpoint.
    public var userInfo: URL?
    /// OIDC: the JSON Web Key Set that signs id_tokens.
    public var jwks: URL?

    /// Creates endpoints; every one is optional.
    public init(
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
    public static func keys(for protocolKind: ProviderConfig.ProtocolKind) -> [String] {
        switch protocolKind {
        case .oauth1: ["requestToken", "authorize", "accessToken", "profile"]
        case .oauth2, .oidc: ["authorization", "token", "userInfo", "jwks"]
        }
    }

    /// Whether no endpoint is set.
    public var isEmpty: Bool { self == ProviderEndpoints() }

    /// The endpoint named by its JSON key, nil when unset or unknown.
    public func url(forKey key: String) -> URL? {
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
