import AuthHandlerHTTP
import AuthHandlerProtocols
import AuthHandlerSystem
import Foundation

/// The protocol-specific steps of a redirect sign-in, one driver per protocol family (docs/ARCHITECTURE.md, `Flow`):
/// `OAuth1Driver` (RFC 5849 request token and access token), `OAuth2Driver` (RFC 6749 authorization code with RFC 7636
/// PKCE) and `OIDCDriver` (OAuth 2 with discovery, a nonce and ID-token validation). Each provider's driver is chosen
/// once, by ``SignInDrivers``; the start, the callback and the picker call it and never ask which protocol it speaks.
/// What every sign-in shares — sealing the pending sign-in into its cookie, recording its state, sealing and storing
/// the result, redemption — stays outside the drivers.
protocol SignInProtocolDriver: Sendable {
    /// Whether a start calls the provider before it answers (the OAuth 1.0a request token, a discovery not cached):
    /// such starts count against the start rate limit (HTTP-API.md §2.4 `startRateLimit`).
    func beginCallsProvider() async -> Bool

    /// The start of HTTP-API.md §3.1 for `request`: where to send the browser, and the pending sign-in to seal.
    func begin(_ request: StartRequest) async throws(APIError) -> ProtocolStart

    /// ``begin(_:)`` without waiting, for the listener's own thread; nil when it would have to wait.
    func beginAtOnce(_ request: StartRequest) -> Result<ProtocolStart, APIError>?

    /// The pending sign-in `base` as ``begin(_:)`` would fill it, its random and provider-issued values at their
    /// shortest real lengths, so that the picker can size the cookie (HTTP-API.md §3.6).
    func projected(_ base: PendingSession, request: StartRequest, random: String) -> PendingSession

    /// The callback of HTTP-API.md §3.2 after the state was recorded: the IdP's answer checked and exchanged, the
    /// credential and the profile the result carries.
    func complete(_ fields: [URLFormField], session: PendingSession) async throws(CallbackFailure) -> ProviderSignIn
}

/// What a driver's start gives the flow to seal: the IdP URL and the pending sign-in.
struct ProtocolStart {
    var location: String
    var session: PendingSession
}

/// What a driver's callback gives the flow to seal into a result.
struct ProviderSignIn {
    var credential: IdPCredential
    var profile: ProviderProfile
}

/// What every driver needs of the deployment: how to reach the IdP and how long a pending sign-in lives.
struct ProtocolContext: Sendable {
    let http: any HTTPFetching
    /// `publicURL + "/__/auth/handler"`: the redirect URI (and OAuth 1.0a callback) sent to every IdP.
    let redirectURI: String
    let providerTimeout: Duration
    let sessionTTL: Duration
    let now: WallClock

    /// The pending sign-in of `request`, created now.
    func session(_ request: StartRequest) -> PendingSession {
        request.session(createdAt: now(), ttl: sessionTTL)
    }
}

/// Each configured provider's driver, chosen once when the flow is built: the one place a provider's protocol picks
/// the code that speaks it.
struct SignInDrivers: Sendable {
    private let drivers: [String: any SignInProtocolDriver]
    private let make: @Sendable (ProviderDescriptor) -> any SignInProtocolDriver

    init(
        providers: ProviderRegistry, context: ProtocolContext, endpoints: EndpointResolver,
        validator: IDTokenValidator, providerCalls: OutboundCallLimit
    ) {
        let make: @Sendable (ProviderDescriptor) -> any SignInProtocolDriver = { provider in
            switch provider.protocolKind {
            case .oauth1: OAuth1Driver(provider: provider, context: context, providerCalls: providerCalls)
            case .oauth2: OAuth2Driver(provider: provider, context: context, endpoints: endpoints)
            case .oidc:
                OIDCDriver(
                    oauth2: OAuth2Driver(provider: provider, context: context, endpoints: endpoints),
                    validator: validator)
            }
        }
        self.make = make
        drivers = providers.descriptors.mapValues(make)
    }

    /// The driver of `provider`: the one chosen for it, or one made for a descriptor the registry does not hold.
    subscript(provider: ProviderDescriptor) -> any SignInProtocolDriver {
        drivers[provider.id] ?? make(provider)
    }
}
