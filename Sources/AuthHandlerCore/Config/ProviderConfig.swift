import AuthHandlerCrypto
import Foundation

/// One identity provider's settings: an entry of `providers` in the config, after validation and defaults.
package struct ProviderConfig: Sendable, Hashable {
    /// The protocol a provider speaks.
    package enum ProtocolKind: String, Sendable, Hashable, CaseIterable {
        /// OAuth 1.0a (RFC 5849).
        case oauth1
        /// OAuth 2.0 authorization code with PKCE.
        case oauth2
        /// OpenID Connect.
        case oidc
    }

    /// OAuth 1.0a request-signing method.
    package enum SignatureMethod: String, Sendable, Hashable, CaseIterable {
        case hmacSHA1 = "HMAC-SHA1"
        case hmacSHA256 = "HMAC-SHA256"
        case plaintext = "PLAINTEXT"
    }

    /// How the client authenticates at the OAuth 2 token endpoint.
    package enum TokenEndpointAuth: String, Sendable, Hashable, CaseIterable {
        case clientSecretBasic = "client_secret_basic"
        case clientSecretPost = "client_secret_post"
        case none
    }

    /// How the IdP returns the authorization response.
    package enum ResponseMode: String, Sendable, Hashable, CaseIterable {
        case query
        case formPost = "form_post"
    }

    /// The protocol a provider id implies: built-in ids by their ``BuiltInProvider`` entry, custom ids (`oidc.NAME`, `oauth2.NAME`,
    /// `oauth1.NAME`) by prefix; nil for an id of neither form.
    package static func impliedProtocol(forID id: String) -> ProtocolKind? {
        if let builtIn = BuiltInProvider.named(id) { return builtIn.protocolKind }
        guard let dot = id.firstIndex(of: ".") else { return nil }
        let name = id[id.index(after: dot)...]
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) })
        else { return nil }
        return ProtocolKind(rawValue: String(id[..<dot]))
    }

    /// Whether `id` names a built-in provider (which has default endpoints).
    package static func isBuiltIn(_ id: String) -> Bool { BuiltInProvider.named(id) != nil }

    /// The protocol; implied by the id when not written.
    package var protocolKind: ProtocolKind
    /// OAuth 1.0a consumer key.
    package var consumerKey: String?
    /// OAuth 1.0a consumer secret.
    package var consumerSecret: SecretReference?
    /// OAuth 2 / OIDC client id.
    package var clientId: String?
    /// OAuth 2 / OIDC client secret (optional when teamId/keyId/privateKey sign one, for Apple).
    package var clientSecret: SecretReference?
    /// OIDC issuer, used for discovery and `iss` checks.
    package var issuer: URL?
    /// Endpoint overrides.
    package var endpoints = ProviderEndpoints()
    /// Default scopes; nil means the provider's built-in defaults.
    package var scopes: [String]?
    /// OAuth 1.0a signature method (`HMAC-SHA1` by default); nil for other protocols.
    package var signatureMethod: SignatureMethod?
    /// Token endpoint client authentication (`client_secret_basic` by default); nil for OAuth 1.0a.
    package var tokenEndpointAuth: TokenEndpointAuth?
    /// Authorization response mode (the built-in provider's, else `query`); nil for OAuth 1.0a.
    package var responseMode: ResponseMode?
    /// Apple: the developer team id, for signing the client-secret JWT.
    package var teamId: String?
    /// Apple: the id of the Sign in with Apple key.
    package var keyId: String?
    /// Apple: the PEM private key of that key.
    package var privateKey: SecretReference?
    /// The name on the provider's button in the sign-in picker; nil means the catalogue's name for a built-in id,
    /// else the id (HTTP-API.md §2.6, §3.6).
    package var displayName: String?
    /// Custom providers: report the provider's `email` as verified although it sends no verified flag
    /// (HTTP-API.md §3.3); nil (false) by default, and a warning when true.
    package var trustEmail: Bool?

    private enum CodingKeys: String, CodingKey {
        case protocolKind = "protocol"
        case consumerKey, consumerSecret, clientId, clientSecret, issuer, endpoints, scopes, signatureMethod
        case tokenEndpointAuth, responseMode, teamId, keyId, privateKey, displayName, trustEmail
    }
}
