import Foundation

/// The sign-in backend a redeemed credential is handed to: `backend` in the config.
public struct BackendConfig: Sendable, Hashable, Codable {
    /// Which backend.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// No backend: the result carries the IdP credential and profile only.
        case none
        /// Identity Toolkit `accounts:signInWithIdp` (Firebase Auth, Identity Platform, the Auth emulator).
        case identitytoolkit
        /// A signed JSON POST to `url`.
        case webhook
    }

    /// The Identity Toolkit base URL used when `url` is not given.
    public static let defaultIdentityToolkitURL = URL(string: "https://identitytoolkit.googleapis.com/v1")

    /// Which backend; `none` by default.
    public var kind: Kind
    /// Identity Toolkit base URL, or the webhook URL.
    public var url: URL?
    /// Identity Toolkit API key.
    public var apiKey: SecretReference?
    /// Webhook HMAC key.
    public var secret: SecretReference?
    /// Identity Platform tenant.
    public var tenantId: String?

    /// Creates a backend config.
    public init(
        kind: Kind = .none, url: URL? = nil, apiKey: SecretReference? = nil, secret: SecretReference? = nil,
        tenantId: String? = nil
    ) {
        self.kind = kind
        self.url = url
        self.apiKey = apiKey
        self.secret = secret
        self.tenantId = tenantId
    }
}
