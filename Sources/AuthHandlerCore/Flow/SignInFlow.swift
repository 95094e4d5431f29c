import AuthHandlerHTTP
import AuthHandlerProtocols
import AuthHandlerStore
import AuthHandlerSystem
import Foundation

/// The sign-in flow of HTTP-API.md §3: start a sign-in, take the IdP's callback, redeem the result.
///
/// Every check happens here in the order HTTP-API.md §3 gives; the HTTP layer only routes and renders.
/// Protocol work is delegated to `OAuth1Client`, `OAuth2TokenClient`, `IDTokenValidator` and the
/// `SignInBackend`; state lives in the `SessionStore`.
package final class SignInFlow: Sendable {
    /// What the flow needs to know about its deployment.
    package struct Settings: Sendable {
        /// `publicURL + "/__/auth/handler"`: the redirect URI (and OAuth 1.0a callback) sent to every IdP.
        package var redirectURI: String
        package var redirectPolicy: RedirectURLPolicy
        /// How long a pending sign-in (its cookie) lives (HTTP-API.md §2.3 `sessionTTLSeconds`).
        package var sessionTTL: Duration
        /// How long a result waits for redemption (`resultTTLSeconds`).
        package var resultTTL: Duration
        /// Timeout of each call to the IdP.
        package var providerTimeout: Duration
        /// The keys pending sign-ins are sealed under (HTTP-API.md §2.3 `stateKey`).
        package var stateKeys: StateKeyRing
        /// Whether a start must carry `resultChallenge` (HTTP-API.md §2.4 `requireResultChallenge`).
        package var requireResultChallenge: Bool
        /// Starts that call the provider first and callbacks that exchange a code, per client address (HTTP-API.md
        /// §2.4 `startRateLimit`).
        package var startRateLimit: StartRateLimit
        /// Peers whose `X-Forwarded-For` names the client (HTTP-API.md §2.4 `trustedProxies`).
        package var trustedProxies: [IPAddressRange]
        /// Calls to providers in flight at once, across all clients: request-token calls at start and callbacks'
        /// exchanges together; a start or callback beyond it answers 503 (HTTP-API.md §3.1, §3.2).
        package var maximumConcurrentProviderCalls: Int
        /// The operator's product name for the pages people see (HTTP-API.md §2.11 `branding`); nil for none. It
        /// travels with the flow so that a reload changes it with the rest of the config.
        package var productName: String?
        /// The device sign-in (HTTP-API.md §2.12, §3.9); off unless the config enables it.
        package var deviceAuthorization: DeviceAuthorizationConfig = .default

        package init(
            redirectURI: String, redirectPolicy: RedirectURLPolicy, stateKeys: StateKeyRing,
            sessionTTL: Duration = .seconds(600), resultTTL: Duration = .seconds(120),
            providerTimeout: Duration = .seconds(10), requireResultChallenge: Bool = true,
            startRateLimit: StartRateLimit = .default, trustedProxies: [IPAddressRange] = [],
            maximumConcurrentProviderCalls: Int = 64, productName: String? = nil
        ) {
            self.redirectURI = redirectURI
            self.redirectPolicy = redirectPolicy
            self.stateKeys = stateKeys
            self.sessionTTL = sessionTTL
            self.resultTTL = resultTTL
            self.providerTimeout = providerTimeout
            self.requireResultChallenge = requireResultChallenge
            self.startRateLimit = startRateLimit
            self.trustedProxies = trustedProxies
            self.maximumConcurrentProviderCalls = maximumConcurrentProviderCalls
            self.productName = productName
        }

        /// Whether the handler is reached over https: its cookies are then `Secure` and `__Host-` named.
        var httpsOrigin: Bool { redirectURI.lowercased().hasPrefix("https:") }

        /// What a client is told to wait before retrying a redemption another one holds: the backend call in
        /// flight ends within the provider timeout.
        var redemptionRetryAfter: Int { Int(providerTimeout.components.seconds) + 1 }
    }

    package let settings: Settings
    package let providers: ProviderRegistry
    let store: any SessionStore
    /// The same store as a `CounterStore`: the device sign-in's wrong-code counts, shared by every instance on it
    /// (HTTP-API.md §3.9).
    let counters: any CounterStore
    let backend: any SignInBackend
    let http: any HTTPFetching
    let discovery: OIDCDiscovery
    let validator: IDTokenValidator
    /// Told how each step ended; it logs and counts (docs/ARCHITECTURE.md, `Observability`).
    let observer: any SignInObserver
    let now: WallClock
    package let startLimiter: StartRateLimiter
    package let providerCalls: OutboundCallLimit
    /// Device sign-in's per-instance poll pacing (HTTP-API.md §3.9).
    package let devicePacing: DevicePacing

    package init(
        settings: Settings, providers: ProviderRegistry, store: any SessionStore & CounterStore,
        backend: any SignInBackend, http: any HTTPFetching, observer: any SignInObserver,
        now: @escaping WallClock = systemWallClock,
        startLimiter: StartRateLimiter? = nil, providerCalls: OutboundCallLimit? = nil,
        devicePacing: DevicePacing? = nil
    ) {
        self.settings = settings
        self.providers = providers
        self.store = store
        self.counters = store
        self.backend = backend
        self.http = http
        self.discovery = OIDCDiscovery(http: http, requestTimeout: settings.providerTimeout, now: now)
        self.validator = IDTokenValidator(
            keys: JWKSCache(
                http: http, requestTimeout: settings.providerTimeout, now: now,
                reportSkipped: { uri, skipped in observer.keysSkipped(jwksURI: uri, skipped) }))
        self.observer = observer
        self.now = now
        // Given by a reload that keeps them, so a SIGHUP neither refills every client's allowance nor forgets the
        // provider calls in flight.
        self.startLimiter = startLimiter ?? StartRateLimiter(settings.startRateLimit, now: now)
        self.providerCalls =
            providerCalls ?? OutboundCallLimit(maximum: settings.maximumConcurrentProviderCalls)
        self.devicePacing = devicePacing ?? DevicePacing()
    }

    /// Milliseconds since `start`, for the observer.
    func milliseconds(since start: Date) -> String {
        String(Int((now().timeIntervalSince(start) * 1000).rounded()))
    }

    /// A provider-supplied or user-supplied value cut to a length safe to echo in a message.
    static func shortened(_ value: String, limit: Int = 64) -> String {
        value.count <= limit ? value : String(value.prefix(limit)) + "…"
    }

    /// The flow's own state (device grants, requests and decisions; a cookie's session) as the JSON that is sealed,
    /// written by the one serializer (``JSONWritable``). Its `throws` stays for the callers that sealed with
    /// `JSONEncoder`, which could fail.
    static func encode(_ value: some JSONWritable) throws(APIError) -> [UInt8] {
        value.serialized
    }

    /// The state sealed by ``encode(_:)``, or by `JSONEncoder` in earlier releases (the same JSON); nil when it does not
    /// read as `type`.
    static func decode<T: JSONReadable>(_ type: T.Type, from payload: [UInt8]) -> T? {
        T(parsing: payload)
    }

    /// Maps a store failure to 503, so the client retries.
    static func storeFailure(_ error: StoreError) -> APIError {
        APIError(
            .unavailable, "the session store is unavailable; try again shortly (the operator should check the logs)")
    }
}
