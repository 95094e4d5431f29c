import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerProtocols
import AuthHandlerSystem
import Foundation

/// A configured provider in its runtime form: defaults applied, endpoints resolved, secrets read.
///
/// Built by ``ProviderRegistry`` at startup; the flow asks it for protocol clients.
package struct ProviderDescriptor: Sendable {
    /// The provider id (`twitter.com`, `oidc.corp`, ...).
    package var id: String
    package var protocolKind: ProviderConfig.ProtocolKind
    /// Whether `id` is one of the built-ins of HTTP-API.md §2.6.
    package var isBuiltIn: Bool
    /// The built-in defaults overlaid with the configured `endpoints`; OIDC ones may still need discovery.
    package var endpoints: ProviderEndpoints
    /// Scopes sent when the sign-in names none: the configured `scopes`, else the provider's defaults.
    package var defaultScopes: [String]
    /// The OAuth 2 / OIDC `client_id`, or the OAuth 1.0a consumer key.
    package var clientID: String
    /// The client secret (or consumer secret); nil for `tokenEndpointAuth` `none`.
    package var clientSecret: ClientSecretSource?
    /// OAuth 1.0a only.
    package var signatureMethod: OAuth1SignatureMethod?
    /// OAuth 2 / OIDC only.
    package var tokenEndpointAuth: ProviderConfig.TokenEndpointAuth?
    /// OAuth 2 / OIDC only.
    package var responseMode: ProviderConfig.ResponseMode?
    /// The `iss` ID tokens (and RFC 9207 callbacks) must carry; nil when the provider has no issuer.
    package var issuer: ExpectedIssuer?
    /// OIDC: where `/.well-known/openid-configuration` lives (required when ``needsDiscovery``); nil otherwise.
    package var discoveryIssuer: URL?
    /// The ID-token signature algorithms accepted; empty for providers without ID tokens.
    package var idTokenAlgorithms: [JWSAlgorithm]
    package var profileMapping: ProfileMapping
    /// The name on its button in the sign-in picker (HTTP-API.md §3.6): the configured `displayName`, else the
    /// catalogue's name for a built-in id, else the id.
    package var displayName: String
    /// Whether the provider's `email` counts as verified without a verified flag (``ProfileMapper``): the catalogue's
    /// ``BuiltInProvider/returnsOnlyVerifiedEmail``, or a custom provider's `trustEmail`.
    package var trustsEmail: Bool

    /// Creates a descriptor; ``ProviderRegistry`` is the usual way.
    package init(
        id: String, protocolKind: ProviderConfig.ProtocolKind, isBuiltIn: Bool = false,
        endpoints: ProviderEndpoints, defaultScopes: [String] = [], clientID: String,
        clientSecret: ClientSecretSource?, signatureMethod: OAuth1SignatureMethod? = nil,
        tokenEndpointAuth: ProviderConfig.TokenEndpointAuth? = nil, responseMode: ProviderConfig.ResponseMode? = nil,
        issuer: ExpectedIssuer? = nil, discoveryIssuer: URL? = nil, idTokenAlgorithms: [JWSAlgorithm] = [],
        profileMapping: ProfileMapping, displayName: String? = nil,
        trustsEmail: Bool = false
    ) {
        self.id = id
        self.protocolKind = protocolKind
        self.isBuiltIn = isBuiltIn
        self.endpoints = endpoints
        self.defaultScopes = defaultScopes
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.signatureMethod = signatureMethod
        self.tokenEndpointAuth = tokenEndpointAuth
        self.responseMode = responseMode
        self.issuer = issuer
        self.discoveryIssuer = discoveryIssuer
        self.idTokenAlgorithms = idTokenAlgorithms
        self.profileMapping = profileMapping
        self.displayName = displayName ?? BuiltInProvider.named(id)?.displayName ?? id
        self.trustsEmail = trustsEmail
    }

    /// Whether an OIDC provider still lacks an endpoint that discovery from `discoveryIssuer` must supply.
    package var needsDiscovery: Bool {
        protocolKind == .oidc && (endpoints.authorization == nil || endpoints.token == nil || endpoints.jwks == nil)
    }

    /// Whether the authorization response comes back as a POST (`response_mode=form_post`).
    package var usesFormPost: Bool { responseMode == .formPost }

    /// GitHub's `/user/emails`: the `userInfo` URL with `/emails` appended to its path, so that an
    /// `endpoints.userInfo` override (a fake IdP) moves it too. Nil for other mappings.
    package var emailsEndpoint: URL? {
        guard profileMapping == .github, let userInfo = endpoints.userInfo,
            var components = URLComponents(url: userInfo, resolvingAgainstBaseURL: false)
        else { return nil }
        components.path =
            (components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path)
            + "/emails"
        return components.url
    }

    /// The OAuth 1.0a client, whose signatures are dated by `now`; nil unless this is an OAuth 1.0a provider with all
    /// three endpoints.
    package func oauth1Client(
        http: any HTTPFetching, timeout: Duration = .seconds(10), now: @escaping WallClock = systemWallClock
    ) -> OAuth1Client? {
        guard protocolKind == .oauth1, case .fixed(let secret) = clientSecret,
            let requestToken = endpoints.requestToken, let authorize = endpoints.authorize,
            let accessToken = endpoints.accessToken
        else { return nil }
        var signer = OAuth1Signer(
            consumerKey: clientID, consumerSecret: secret.reveal(), signatureMethod: signatureMethod ?? .default)
        signer.now = now
        return OAuth1Client(
            signer: signer, requestTokenEndpoint: requestToken.absoluteString,
            authorizeEndpoint: authorize.absoluteString,
            accessTokenEndpoint: accessToken.absoluteString, http: http, timeout: timeout)
    }

    /// The authorization request for this provider; `nonce` is sent only for OIDC.
    package func authorizationRequest(
        endpoint: URL, redirectURI: String, scopes: [String]? = nil, state: String, codeChallenge: String,
        nonce: String?, customParameters: [URLFormField] = []
    ) -> AuthorizationRequest {
        AuthorizationRequest(
            endpoint: endpoint.absoluteString, clientID: clientID, redirectURI: redirectURI,
            scopes: scopes ?? defaultScopes, state: state, codeChallenge: codeChallenge,
            nonce: protocolKind == .oidc ? nonce : nil, usesFormPost: usesFormPost,
            customParameters: customParameters)
    }

    /// The token endpoint client authentication, with the current secret (Apple's is signed here), revealed for the
    /// protocol code, which takes plain values.
    package func clientAuthentication() throws(CryptoError) -> OAuth2ClientAuthentication {
        guard let clientSecret, tokenEndpointAuth != ProviderConfig.TokenEndpointAuth.none else { return .none }
        let secret = try clientSecret.current().reveal()
        return tokenEndpointAuth == .clientSecretPost ? .clientSecretPost(secret) : .clientSecretBasic(secret)
    }

    /// A token client for `endpoint` (the configured one, or the discovered one).
    package func tokenClient(endpoint: URL, http: any HTTPFetching, timeout: Duration = .seconds(10))
        throws(CryptoError) -> OAuth2TokenClient
    {
        OAuth2TokenClient(
            endpoint: endpoint.absoluteString, clientID: clientID, authentication: try clientAuthentication(),
            http: http, timeout: timeout)
    }
}
