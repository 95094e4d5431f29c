import Foundation

/// The sign-in backend a redeemed credential is handed to: `backend` in the config.
package struct BackendConfig: Sendable, Hashable, Codable {
    /// Which backend.
    package enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// No backend: the result carries the IdP credential and profile only.
        case none
        /// Identity Toolkit `accounts:signInWithIdp` (Firebase Auth, Identity Platform, the Auth emulator).
        case identitytoolkit
        /// A signed JSON POST to `url`.
        case webhook
    }

    /// The Identity Toolkit base URL used when `url` is not given.
    package static let defaultIdentityToolkitURL = URL(string: "https://identitytoolkit.googleapis.com/v1")

    /// Which backend; `none` by default.
    package var kind: Kind = .none
    /// Identity Toolkit base URL, or the webhook URL.
    package var url: URL?
    /// Identity Toolkit API key.
    package var apiKey: SecretReference?
    /// Webhook HMAC key.
    package var secret: SecretReference?
    /// Identity Platform tenant.
    package var tenantId: String?
}
