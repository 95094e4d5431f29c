import AuthHandlerHTTP
import AuthHandlerProtocols
import AuthHandlerStore
import AuthHandlerSystem
import Foundation

/// The sign-in flow of HTTP-API.md §3: start a sign-in, take the IdP's callback, redeem the result, and device
/// sign-in (§3.9).
///
/// A thin facade over its parts, built together from one configuration so that a reload swaps them at once:
/// ``SignInStart`` (and the picker), ``SignInCallback``, ``SignInRedemption``, ``DeviceSignIn`` and
/// ``DevicePolling``, each holding only the collaborators it uses. The protocol steps are each provider's
/// ``SignInProtocolDriver``. Every check happens in the parts in the order HTTP-API.md §3 gives; the HTTP layer only
/// routes and renders.
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
    package let startLimiter: StartRateLimiter
    package let providerCalls: OutboundCallLimit
    /// Device sign-in's per-instance poll pacing (HTTP-API.md §3.9).
    package let devicePacing: DevicePacing
    /// The parts, each with only the collaborators it uses (docs/ARCHITECTURE.md, `Flow`).
    let starts: SignInStart
    let callbacks: SignInCallback
    let redemption: SignInRedemption
    let device: DeviceSignIn
    let devicePolls: DevicePolling
    /// The backend redemptions hand their credential to; the accounts routes (HTTP-API.md §3.10) use its engine.
    package let backend: any SignInBackend

    package init(
        settings: Settings, providers: ProviderRegistry, store: any SessionStore & DeviceStore,
        backend: any SignInBackend, http: any HTTPFetching, observer: any SignInObserver,
        now: @escaping WallClock = systemWallClock,
        startLimiter: StartRateLimiter? = nil, providerCalls: OutboundCallLimit? = nil,
        devicePacing: DevicePacing? = nil
    ) {
        self.settings = settings
        self.providers = providers
        self.backend = backend
        // Given by a reload that keeps them, so a SIGHUP neither refills every client's allowance nor forgets the
        // provider calls in flight.
        let startLimiter = startLimiter ?? StartRateLimiter(settings.startRateLimit, now: now)
        let providerCalls = providerCalls ?? OutboundCallLimit(maximum: settings.maximumConcurrentProviderCalls)
        self.startLimiter = startLimiter
        self.providerCalls = providerCalls
        self.devicePacing = devicePacing ?? DevicePacing()
        let validator = IDTokenValidator(
            keys: JWKSCache(
                http: http, requestTimeout: settings.providerTimeout, now: now,
                reportSkipped: { uri, skipped in observer.keysSkipped(jwksURI: uri, skipped) }))
        let drivers = SignInDrivers(
            providers: providers,
            context: ProtocolContext(
                http: http, redirectURI: settings.redirectURI, providerTimeout: settings.providerTimeout,
                sessionTTL: settings.sessionTTL, now: now),
            endpoints: EndpointResolver(
                discovery: OIDCDiscovery(http: http, requestTimeout: settings.providerTimeout, now: now)),
            validator: validator, providerCalls: providerCalls)
        starts = SignInStart(
            settings: settings, providers: providers, drivers: drivers,
            cookies: PendingSignInCookies(settings: settings, providers: providers, observer: observer, now: now),
            startLimiter: startLimiter, observer: observer, now: now)
        let deviceOutcomes = DeviceOutcomes(settings: settings, store: store, now: now)
        callbacks = SignInCallback(
            settings: settings, providers: providers, drivers: drivers, store: store,
            results: ResultStorage(store: store, resultTTL: settings.resultTTL, now: now),
            deviceOutcomes: deviceOutcomes, startLimiter: startLimiter, providerCalls: providerCalls,
            observer: observer, now: now)
        redemption = SignInRedemption(
            store: store, providers: providers, backend: backend, observer: observer, now: now,
            retryAfterSeconds: settings.redemptionRetryAfter)
        device = DeviceSignIn(
            settings: settings, providers: providers, store: store, starts: starts,
            codeEntries: DeviceCodeEntryLimit(counters: store), outcomes: deviceOutcomes, startLimiter: startLimiter,
            observer: observer, now: now)
        devicePolls = DevicePolling(store: store, pacing: self.devicePacing, redemption: redemption, now: now)
    }

    /// Milliseconds from `start` to `now`, for the observer.
    static func milliseconds(since start: Date, now: WallClock) -> String {
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

    /// The one place a store failure becomes an HTTP answer (HTTP-API.md §5): a store that cannot serve is `503`, so
    /// the client retries; a conflict, a missing record or a refused constraint that reaches this far is one the flow
    /// did not expect to meet, so `500`. A step that expects one of those kinds (a user code drawn again on
    /// `.conflict`) handles it before calling this.
    static func storeFailure(_ error: StoreError) -> APIError {
        switch error.kind {
        case .unavailable:
            APIError(
                .unavailable,
                "the session store is unavailable; try again shortly (the operator should check the logs)")
        case .conflict, .notFound, .constraint:
            APIError(.internalError, "the session store refused the operation (the operator should check the logs)")
        }
    }
}
