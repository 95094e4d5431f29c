import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerProtocols
import AuthHandlerSystem
import Foundation

/// What a start answers: where to send the browser, and the cookie that carries the pending sign-in there and back.
package struct StartAnswer: Sendable {
    /// The IdP URL (`302`).
    package var location: String
    /// The `Set-Cookie` value of the sealed pending sign-in.
    package var setCookie: String
    /// `name=value` of that cookie, as a browser sends it back in `Cookie` (`--once` keeps it in the process).
    package var cookiePair: String
    /// `Set-Cookie` values that remove the browser's oldest pending sign-ins beyond
    /// ``SignInFlow/maximumPendingPerBrowser``.
    package var evictions: [String] = []
}

/// Starting a sign-in: HTTP-API.md §3.1. Nothing is written to the store: the pending sign-in is sealed into the
/// browser's cookie.
extension SignInFlow {
    /// The most pending sign-ins one browser keeps: each is a cookie of up to ``SignInCookie/maximumLength`` bytes,
    /// and a page that starts sign-ins in the user's browser must not be able to grow its `Cookie` header past what
    /// the listener accepts (the whole origin would answer 431 until the cookies expire).
    package static let maximumPendingPerBrowser = 10

    /// Checks a start request from `client` (its address, for the start rate limit; nil for the process's own
    /// start in `--once`), carrying the browser's `Cookie` fields `cookieHeaders` and its `fetchMetadata`, and returns
    /// where to send the browser (the IdP) with the sealed pending sign-in.
    package func start(
        _ fields: [URLFormField], client: String? = nil, cookieHeaders: [String] = [],
        fetchMetadata: FetchMetadata = FetchMetadata()
    ) async throws(APIError) -> StartAnswer {
        let began = now()
        let request = try StartRequest(fields: fields, fetchMetadata: fetchMetadata, flow: self)
        let provider = request.provider
        if let client, await startCallsProvider(provider),
            case .limited(let seconds) = startLimiter.admit(ClientAddress.rateLimitKey(client))
        {
            observer.stepFailed(
                .start, provider: provider.id, code: .tooManyRequests, latencyMilliseconds: nil, reason: nil)
            throw APIError(
                .tooManyRequests, "too many sign-ins started from this address; retry in \(seconds) s",
                retryAfterSeconds: seconds)
        }
        do {
            let answer: StartAnswer
            switch provider.protocolKind {
            case .oauth1: answer = try await startOAuth1(request)
            case .oauth2, .oidc: answer = try startOAuth2(request, endpoints: try await resolvedEndpoints(provider))
            }
            return started(answer, provider: provider, cookieHeaders: cookieHeaders, began: began)
        } catch {
            throw startFailed(error, provider: provider, began: began)
        }
    }

    /// ``start(_:client:cookieHeaders:fetchMetadata:)`` answered without waiting, for the listener's own thread
    /// (`HTTPServerImmediateHandler`): the same checks in the same order, the same cookie, the same observer calls.
    /// Nil when the start would have to wait, and the caller then runs `start`: an OAuth 1.0a start (it asks the
    /// provider for a request token) and an OIDC start whose discovery document is not cached (a fetch to make or
    /// share, or a failure remembered). A start answered here calls no provider, so the start rate limit, which
    /// counts only starts that do (HTTP-API.md §2.4 `startRateLimit`), never applies to it and it takes no client.
    package func startImmediately(
        _ fields: [URLFormField], cookieHeaders: [String] = [], fetchMetadata: FetchMetadata = FetchMetadata()
    ) -> Result<StartAnswer, APIError>? {
        let began = now()
        let request: StartRequest
        do {
            request = try StartRequest(fields: fields, fetchMetadata: fetchMetadata, flow: self)
        } catch {
            return .failure(error)
        }
        let provider = request.provider
        guard provider.protocolKind != .oauth1, let endpoints = resolvedEndpointsAtOnce(provider) else { return nil }
        do {
            let answer = try startOAuth2(request, endpoints: endpoints)
            return .success(started(answer, provider: provider, cookieHeaders: cookieHeaders, began: began))
        } catch {
            return .failure(startFailed(error, provider: provider, began: began))
        }
    }

    /// A start that succeeded: the evictions it makes, told to the observer.
    private func started(_ answer: StartAnswer, provider: ProviderDescriptor, cookieHeaders: [String], began: Date)
        -> StartAnswer
    {
        var answer = answer
        answer.evictions = evictions(cookieHeaders)
        observer.stepSucceeded(.start, provider: provider.id, latencyMilliseconds: milliseconds(since: began))
        return answer
    }

    /// A start that failed after its request was checked, told to the observer.
    private func startFailed(_ error: APIError, provider: ProviderDescriptor, began: Date) -> APIError {
        observer.stepFailed(
            .start, provider: provider.id, code: error.code, latencyMilliseconds: milliseconds(since: began),
            reason: error.message)
        return error
    }

    /// Refuses a start that is not a top-level navigation, before anything else, so such a request sets no cookie:
    /// eviction sees only the cookies sent with each request, and twenty `<img>` starts in flight at once would set
    /// twenty (HTTP-API.md §3.1).
    static func requireNavigation(_ fetchMetadata: FetchMetadata) throws(APIError) {
        guard fetchMetadata.isTopLevelNavigation else {
            let made = [
                fetchMetadata.mode.map { "Sec-Fetch-Mode: \($0)" },
                fetchMetadata.destination.map { "Sec-Fetch-Dest: \($0)" },
            ]
            .compactMap { $0 }.joined(separator: ", ")
            throw APIError(
                .navigationRequired,
                "a sign-in starts only as a navigation of the browser window (a link, a redirect, window.location or "
                    + "window.open), not from an image, frame or script (this request came with "
                    + "\(Self.shortened(made, limit: 120))); open the start URL in the window")
        }
    }

    func startOAuth1(_ request: StartRequest) async throws(APIError) -> StartAnswer {
        let provider = request.provider
        guard let client = provider.oauth1Client(http: http, timeout: settings.providerTimeout, now: now) else {
            throw APIError(
                .providerError, "\(provider.id) lacks OAuth 1.0a endpoints or credentials; run check-config")
        }
        // Bounded across clients too, so a flood from many addresses cannot pile up calls to the provider.
        let answer: OAuth1Client.TemporaryCredentials?
        do {
            answer = try await providerCalls.withPermit {
                try await client.requestToken(callback: settings.redirectURI)
            }
        } catch {
            throw APIError(.providerError, "the \(provider.id) request-token call failed: \(error)")
        }
        guard let temporary = answer else {
            throw APIError(
                .unavailable, "too many sign-ins are starting at once; retry in a moment", retryAfterSeconds: 1)
        }
        let location: String
        do {
            location = try client.authorizeURL(token: temporary.token, customParameters: request.customParameters)
        } catch {
            throw APIError(.providerError, "cannot build the \(provider.id) authorize URL: \(error)")
        }
        var session = request.session(createdAt: now(), ttl: settings.sessionTTL)
        session.requestToken = temporary.token
        session.requestTokenSecret = temporary.secret
        return try seal(session, location: location, provider: provider)
    }

    func startOAuth2(_ request: StartRequest, endpoints: ResolvedEndpoints) throws(APIError)
        -> StartAnswer
    {
        let provider = request.provider
        guard let authorization = endpoints.authorization else {
            throw APIError(
                .providerError, "\(provider.id) has no authorization endpoint; set endpoints.authorization")
        }
        let state: String
        let verifier: String
        let challenge: String
        // OIDC: the raw nonce stays sealed in the cookie; the provider gets its hash (OIDCNonce, HTTP-API.md §3.1).
        var rawNonce: String?
        var hashedNonce: String?
        do {
            state = try SecureRandom.base64URLString(byteCount: 32)
            verifier = try PKCE.makeVerifier()
            challenge = try PKCE.challenge(forVerifier: verifier)
            if provider.protocolKind == .oidc {
                let raw = try OIDCNonce.makeRaw()
                rawNonce = raw
                hashedNonce = try OIDCNonce.hashed(raw)
            }
        } catch {
            throw APIError(.internalError, "the random generator failed")
        }
        let scopes = request.providerScopes
        let authorizationRequest = provider.authorizationRequest(
            endpoint: authorization, redirectURI: settings.redirectURI, scopes: scopes, state: state,
            codeChallenge: challenge, nonce: hashedNonce, customParameters: request.customParameters)
        let location: String
        do {
            location = try authorizationRequest.url()
        } catch {
            throw APIError(.providerError, "cannot build the \(provider.id) authorization URL: \(error)")
        }
        var session = request.session(createdAt: now(), ttl: settings.sessionTTL)
        session.state = state
        session.scopes = scopes
        session.codeVerifier = verifier
        session.nonce = rawNonce
        return try seal(session, location: location, provider: provider)
    }

    /// Clearing `Set-Cookie`s for the browser's pending sign-ins beyond the newest ``maximumPendingPerBrowser`` − 1
    /// (the new one makes the maximum): cookies that do not open first, then the oldest.
    func evictions(_ cookieHeaders: [String]) -> [String] {
        let pending = SignInCookie.all(in: cookieHeaders)
        guard pending.count >= Self.maximumPendingPerBrowser else { return [] }
        let ranked = pending.map { cookie in
            let session = PendingSession.opening(cookie.value, cookieName: cookie.name, keys: settings.stateKeys)
            let formPost = session.flatMap { providers[$0.providerID] }?.usesFormPost ?? false
            return (name: cookie.name, createdAt: session?.createdAt ?? .distantPast, formPost: formPost)
        }.sorted { $0.createdAt < $1.createdAt }
        return ranked.prefix(pending.count - Self.maximumPendingPerBrowser + 1).map { cookie in
            SignInCookie.clearing(
                name: cookie.name,
                attributes: SignInCookie.Attributes(httpsOrigin: settings.httpsOrigin, crossSitePost: cookie.formPost))
        }
    }

    /// Seals the pending sign-in into its cookie; a session too large for a cookie is the request's fault.
    private func seal(_ session: PendingSession, location: String, provider: ProviderDescriptor)
        throws(APIError) -> StartAnswer
    {
        let cookie = try pendingCookie(session)
        let attributes = SignInCookie.Attributes(
            httpsOrigin: settings.httpsOrigin, crossSitePost: provider.usesFormPost)
        observer.pendingStarted(expiresAt: session.expiresAt, now: now())
        return StartAnswer(
            location: location,
            setCookie: cookie.setCookie(maxAge: Int(settings.sessionTTL.components.seconds), attributes: attributes),
            cookiePair: "\(cookie.name)=\(cookie.value)")
    }

    /// The cookie that carries `session`, sealed under the current state key; a session too large for a cookie is
    /// refused with `400 invalid-request` (HTTP-API.md §3.1).
    func pendingCookie(_ session: PendingSession) throws(APIError) -> SignInCookie {
        guard let key = session.lookupKey,
            let name = SignInCookie.name(forState: key, httpsOrigin: settings.httpsOrigin)
        else { throw APIError(.internalError, "the sign-in state could not be made") }
        let value: String
        do {
            value = try settings.stateKeys.seal(session.plaintext, context: name)
        } catch {
            throw APIError(.internalError, "the sign-in state could not be sealed")
        }
        guard name.utf8.count + 1 + value.utf8.count <= SignInCookie.maximumLength else {
            throw APIError(
                .invalidRequest,
                "this sign-in's state does not fit in a \(SignInCookie.maximumLength)-byte cookie; shorten "
                    + "redirectUrl, eventId or scopes")
        }
        return SignInCookie(name: name, value: value)
    }
}

/// A start request's parameters, each checked, in the order HTTP-API.md §3.1 lists them.
struct StartRequest {
    let provider: ProviderDescriptor
    let redirectURL: String
    let authType: AuthType
    let eventID: String?
    let requestedScopes: [String]
    let customParameters: [URLFormField]
    let resultChallenge: String?
    /// Set for a device sign-in's start (HTTP-API.md §3.9); carried into the pending sign-in.
    var deviceResultCode: String? = nil
    /// `resultDelivery` as given; nil (absent) is the query.
    var resultDelivery: ResultDelivery? = nil

    /// The bounds on what the app sends that is sealed into the cookie, so that one stays small (HTTP-API.md §3.1).
    static let maximumEventIDLength = 128
    static let maximumRedirectURLLength = 512
    static let maximumScopesLength = 256
    /// The most bytes the custom parameters may take in the provider URL, percent-encoded: with the handler's own
    /// parameters the URL then stays within the 8,000 octets RFC 9110 §4.1 asks every recipient to accept.
    static let maximumCustomParameterBytes = 4096

    /// The request of a start: first that it is a navigation, then its fields.
    init(fields: [URLFormField], fetchMetadata: FetchMetadata, flow: SignInFlow) throws(APIError) {
        try SignInFlow.requireNavigation(fetchMetadata)
        try self.init(fields: fields, flow: flow)
    }

    init(fields: [URLFormField], flow: SignInFlow) throws(APIError) {
        for name in [
            "providerId", "redirectUrl", "authType", "eventId", "scopes", "customParameters", "resultChallenge",
            "resultDelivery",
        ]
        where fields.all(named: name).count > 1 {
            throw APIError(.invalidRequest, "\(name) is given more than once; send it once")
        }
        provider = try Self.provider(fields.first(named: "providerId"), in: flow.providers)
        redirectURL = try Self.redirectURL(fields.first(named: "redirectUrl"), policy: flow.settings.redirectPolicy)
        authType = try Self.authType(fields.first(named: "authType"))
        eventID = try Self.eventID(fields.first(named: "eventId"))
        requestedScopes = try Self.scopes(fields.first(named: "scopes"))
        customParameters = try Self.customParameters(fields.first(named: "customParameters"), provider: provider)
        resultChallenge = try Self.resultChallenge(
            fields.first(named: "resultChallenge"), required: flow.settings.requireResultChallenge)
        resultDelivery = try Self.resultDelivery(fields.first(named: "resultDelivery"))
    }

    /// `providerId`: a configured provider.
    static func provider(_ id: String?, in providers: ProviderRegistry) throws(APIError) -> ProviderDescriptor {
        guard let id, !id.isEmpty else {
            throw APIError(
                .invalidRequest, "providerId is required; add providerId=<a configured provider id> to the URL")
        }
        guard let provider = providers[id] else {
            let known = providers.ids.joined(separator: ", ")
            throw APIError(
                .invalidProvider, "'\(SignInFlow.shortened(id))' is not a configured provider; configured: \(known)")
        }
        return provider
    }

    /// `redirectUrl`: one of `allowedRedirectURLs`, exactly.
    static func redirectURL(_ given: String?, policy: RedirectURLPolicy) throws(APIError) -> String {
        guard let given, !given.isEmpty else {
            throw APIError(.invalidRequest, "redirectUrl is required; add redirectUrl=<one of allowedRedirectURLs>")
        }
        guard given.utf8.count <= maximumRedirectURLLength else {
            throw APIError(
                .invalidRequest,
                "redirectUrl is longer than \(maximumRedirectURLLength) bytes; keep app state elsewhere than in its query"
            )
        }
        guard policy.allows(given) else {
            throw APIError(
                .unauthorizedRedirectURL,
                "redirectUrl is not in allowedRedirectURLs; add the exact URL (scheme, host, port and path) "
                    + "to allowedRedirectURLs in the config")
        }
        return given
    }

    /// `authType`, `signInViaRedirect` when absent.
    static func authType(_ name: String?) throws(APIError) -> AuthType {
        let name = name ?? AuthType.signInViaRedirect.rawValue
        guard let authType = AuthType(rawValue: name) else {
            throw APIError(
                .unsupportedAuthType,
                "authType '\(SignInFlow.shortened(name))' is not supported; use signInViaRedirect, "
                    + "linkViaRedirect or reauthViaRedirect")
        }
        return authType
    }

    /// `eventId`: at most 128 printable characters (bytes), when given.
    static func eventID(_ eventID: String?) throws(APIError) -> String? {
        if let eventID {
            guard eventID.utf8.count <= Self.maximumEventIDLength,
                eventID.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7f })
            else {
                throw APIError(
                    .invalidRequest, "eventId must be at most \(maximumEventIDLength) printable characters")
            }
        }
        return eventID
    }

    /// `scopes`: at most 256 bytes of comma-separated scope tokens, trimmed, empty ones and repeats dropped.
    static func scopes(_ text: String?) throws(APIError) -> [String] {
        guard (text?.utf8.count ?? 0) <= maximumScopesLength else {
            throw APIError(
                .invalidRequest, "scopes is longer than \(maximumScopesLength) bytes; request fewer scopes")
        }
        var scopes: [String] = []
        for scope in (text ?? "").split(separator: ",") {
            let trimmed = scope.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { continue }
            // RFC 6749 §3.3 scope-token: %x21 / %x23-5B / %x5D-7E.
            guard
                trimmed.utf8.allSatisfy({ $0 == 0x21 || (0x23...0x5B).contains($0) || (0x5D...0x7E).contains($0) })
            else {
                throw APIError(
                    .invalidRequest,
                    "scope '\(SignInFlow.shortened(trimmed))' has characters a scope cannot have (RFC 6749 §3.3)")
            }
            if !scopes.contains(trimmed) { scopes.append(trimmed) }
        }
        return scopes
    }

    /// `resultChallenge`: the base64url SHA-256 of the app's redemption verifier; required when the config says so.
    static func resultChallenge(_ challenge: String?, required: Bool) throws(APIError) -> String? {
        if challenge == nil, required {
            throw APIError(
                .invalidRequest,
                "resultChallenge is required: send the base64url SHA-256 of a random verifier your app keeps, "
                    + "and present the verifier when you redeem the result")
        }
        if let challenge {
            guard challenge.utf8.count == 43, Base64.urlDecode(challenge)?.count == 32 else {
                throw APIError(
                    .invalidRequest,
                    "resultChallenge must be the base64url SHA-256 (43 characters) of your redemption verifier")
            }
        }
        return challenge
    }

    /// `resultDelivery`: `query` or `fragment`, when given.
    static func resultDelivery(_ name: String?) throws(APIError) -> ResultDelivery? {
        guard let name else { return nil }
        guard let delivery = ResultDelivery(rawValue: name) else {
            throw APIError(
                .invalidRequest,
                "resultDelivery '\(SignInFlow.shortened(name))' is not supported; use query (the default) or fragment")
        }
        return delivery
    }

    /// `customParameters`: a JSON object of strings, none of them reserved for the provider's protocol.
    static func customParameters(_ text: String?, provider: ProviderDescriptor) throws(APIError) -> [URLFormField] {
        guard let text, !text.isEmpty else { return [] }
        guard let object = JSONValue.parse(Array(text.utf8))?.objectValue else {
            throw APIError(
                .invalidRequest,
                #"customParameters must be a JSON object of strings, each name once, e.g. {"login_hint":"a@b.c"}"#)
        }
        var fields: [URLFormField] = []
        for (name, value) in object.sorted(by: { $0.key < $1.key }) {
            guard let string = value.stringValue else {
                throw APIError(.invalidRequest, "customParameters.\(SignInFlow.shortened(name)) must be a string")
            }
            fields.append(URLFormField(name: name, value: string))
        }
        guard FormURLEncoding.encode(fields).utf8.count <= maximumCustomParameterBytes else {
            throw APIError(
                .invalidRequest,
                "customParameters take more than \(maximumCustomParameterBytes) bytes in the provider URL; "
                    + "send fewer or shorter ones")
        }
        let family: ReservedParameters.ProtocolFamily = provider.protocolKind == .oauth1 ? .oauth1 : .oauth2
        do {
            try ReservedParameters.validate(fields, for: family)
        } catch {
            switch error {
            case .invalidName: throw APIError(.invalidRequest, error.description)
            case .reserved: throw APIError(.reservedCustomParameter, error.description)
            }
        }
        return fields
    }

    /// The provider's default scopes followed by the requested ones, without repeats.
    func scopes(defaults: [String]) -> [String] {
        var scopes = defaults
        for scope in requestedScopes where !scopes.contains(scope) { scopes.append(scope) }
        return scopes
    }

    /// The scopes an OAuth 2 or OIDC start sends: ``scopes(defaults:)`` with the provider's configured ones.
    var providerScopes: [String] { scopes(defaults: configuredScopes) }

    /// The provider's own scopes, before any requested one: its default scopes, and `openid` first for OIDC when they
    /// lack it.
    var configuredScopes: [String] {
        var scopes = provider.defaultScopes
        if provider.protocolKind == .oidc, !scopes.contains("openid") { scopes.insert("openid", at: 0) }
        return scopes
    }

    func session(createdAt: Date, ttl: Duration) -> PendingSession {
        PendingSession(
            providerID: provider.id, redirectURL: redirectURL, authType: authType, eventID: eventID,
            resultChallenge: resultChallenge, scopes: requestedScopes, codeVerifier: nil, nonce: nil,
            requestToken: nil, requestTokenSecret: nil, createdAt: createdAt,
            expiresAt: createdAt.addingTimeInterval(ttl.timeInterval), deviceResultCode: deviceResultCode,
            resultDelivery: resultDelivery)
    }
}
