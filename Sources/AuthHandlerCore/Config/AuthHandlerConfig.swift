import AuthHandlerHTTP
import Foundation

/// The whole configuration of an auth-handler instance (HTTP-API.md §2), after validation and defaults.
///
/// Read a file with ``ConfigLoader``, which reports every problem with its JSON path: the one way a configuration is
/// read (`JSONSyntax.parseConfiguration`, then ``ConfigValidator``).
package struct AuthHandlerConfig: Sendable, Hashable {
    /// Addresses to bind, unless systemd passes sockets.
    package var listen: [ListenAddress]
    /// Addresses of the operations listener (`/healthz`, `/readyz`, `/metrics` only); nil serves those on `listen`.
    package var opsListen: [ListenAddress]?
    /// How log lines are written on stderr.
    package var logFormat: LogFormat
    /// The origin IdPs redirect back to; nil means `http://` + the bound listen address.
    package var publicURL: URL?
    /// Where pending sign-ins and results are kept.
    package var store: StoreConfig
    /// How long a started sign-in may take before its state expires.
    package var sessionTTLSeconds: Int
    /// How long a result code stays redeemable.
    package var resultTTLSeconds: Int
    /// How long one call to an IdP (request token, token exchange, userinfo, discovery, JWKS) may take.
    package var providerTimeoutSeconds: Int
    /// How many calls to IdPs may be in flight at once (a start's request token, a callback's exchange), across all
    /// clients (HTTP-API.md §2.1, §3.2).
    package var providerCallLimit: Int = AuthHandlerConfig.defaultProviderCallLimit
    /// Where the handler may send the browser back.
    package var allowedRedirectURLs: [URL]
    /// Where a redeemed credential is handed.
    package var backend: BackendConfig
    /// Providers by id (`google.com`, `oidc.corp`, ...).
    package var providers: [String: ProviderConfig]
    /// The key that seals pending sign-ins into the browser's cookie (HTTP-API.md §2.3, §3.1); nil means
    /// generated and kept beside the store. Its value passes ``StateKeyFormat/decode(_:)`` (checked by
    /// `check-config`).
    package var stateKey: SecretReference?
    /// Earlier state keys, accepted for opening cookies only (key rotation).
    package var previousStateKeys: [SecretReference]
    /// Whether a start must carry `resultChallenge` and redemption its `verifier` (HTTP-API.md §2.4, §3.3).
    package var requireResultChallenge: Bool
    /// The per-client limit on starts that must call the provider first.
    package var startRateLimit: StartRateLimit
    /// The proxies whose `X-Forwarded-For` names the client (see ``ClientAddress``).
    package var trustedProxies: [IPAddressRange]
    /// The operator's product name on the pages people see; nil means pages without one (HTTP-API.md §2.11).
    package var branding: Branding?
    /// How the HTTP listener bounds slow clients.
    package var listener: ListenerLimits = .default
    /// The device sign-in of RFC 8628 (HTTP-API.md §2.12); off by default.
    package var deviceAuthorization: DeviceAuthorizationConfig = .default

    /// The default listen address.
    package static let defaultListen = [ListenAddress(host: "127.0.0.1", port: 8080)]
    /// The default `sessionTTLSeconds`.
    package static let defaultSessionTTLSeconds = 600
    /// The default `resultTTLSeconds`.
    package static let defaultResultTTLSeconds = 120
    /// The default `providerTimeoutSeconds`.
    package static let defaultProviderTimeoutSeconds = 10
    /// The default `providerCallLimit`.
    package static let defaultProviderCallLimit = 64

    /// Creates a config; every argument has the documented default.
    package init(
        listen: [ListenAddress] = AuthHandlerConfig.defaultListen, opsListen: [ListenAddress]? = nil,
        logFormat: LogFormat = .logfmt, publicURL: URL? = nil,
        store: StoreConfig = .default, sessionTTLSeconds: Int = AuthHandlerConfig.defaultSessionTTLSeconds,
        resultTTLSeconds: Int = AuthHandlerConfig.defaultResultTTLSeconds,
        providerTimeoutSeconds: Int = AuthHandlerConfig.defaultProviderTimeoutSeconds, allowedRedirectURLs: [URL] = [],
        backend: BackendConfig = .none, providers: [String: ProviderConfig] = [:],
        stateKey: SecretReference? = nil, previousStateKeys: [SecretReference] = [],
        requireResultChallenge: Bool = true,
        startRateLimit: StartRateLimit = .default, trustedProxies: [IPAddressRange] = [], branding: Branding? = nil
    ) {
        self.listen = listen
        self.opsListen = opsListen
        self.logFormat = logFormat
        self.publicURL = publicURL
        self.store = store
        self.sessionTTLSeconds = sessionTTLSeconds
        self.resultTTLSeconds = resultTTLSeconds
        self.providerTimeoutSeconds = providerTimeoutSeconds
        self.allowedRedirectURLs = allowedRedirectURLs
        self.backend = backend
        self.providers = providers
        self.stateKey = stateKey
        self.previousStateKeys = previousStateKeys
        self.requireResultChallenge = requireResultChallenge
        self.startRateLimit = startRateLimit
        self.trustedProxies = trustedProxies
        self.branding = branding
    }

    /// The redirect URI sent to every IdP: `publicURL + "/__/auth/handler"`; nil when publicURL is not set.
    package var redirectURI: URL? {
        guard let publicURL else { return nil }
        return URL(string: publicURL.absoluteString + "/__/auth/handler")
    }
}
