import AuthHandlerHTTP
import AuthHandlerStore
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
/// browser's cookie. The provider's driver makes the IdP URL and the pending sign-in; this part checks the request,
/// limits the starts that call a provider, seals and reports.
struct SignInStart: Sendable {
    /// The redirect policy and the rule on `resultChallenge` a start request is checked against.
    let settings: SignInFlow.Settings
    let providers: ProviderRegistry
    /// Each provider's protocol steps (``SignInProtocolDriver``).
    let drivers: SignInDrivers
    /// Seals the pending sign-in and clears the browser's oldest.
    let cookies: PendingSignInCookies
    /// The most pending sign-ins one browser keeps: each is a cookie of up to ``SignInCookie/maximumLength`` bytes,
    /// and a page that starts sign-ins in the user's browser must not be able to grow its `Cookie` header past what
    /// the listener accepts (the whole origin would answer 431 until the cookies expire).
    static let maximumPendingPerBrowser = 10

    /// The per-client limit on starts that call the provider (HTTP-API.md §2.4 `startRateLimit`).
    let startLimiter: StartRateLimiter
    /// Told how each start ended; it logs and counts (docs/ARCHITECTURE.md, `Observability`).
    let observer: any SignInObserver
    let now: WallClock

    /// Checks a start request from `client` (its address, for the start rate limit; nil for the process's own
    /// start in `--once`), carrying the browser's `Cookie` fields `cookieHeaders` and its `fetchMetadata`, and returns
    /// where to send the browser (the IdP) with the sealed pending sign-in.
    func start(
        _ fields: [URLFormField], client: String? = nil, cookieHeaders: [String] = [],
        fetchMetadata: FetchMetadata = FetchMetadata()
    ) async throws(APIError) -> StartAnswer {
        let began = now()
        let request = try StartRequest(
            fields: fields, fetchMetadata: fetchMetadata, providers: providers, settings: settings)
        let provider = request.provider
        if let client, await callsProvider(provider),
            case .limited(let seconds) = startLimiter.admit(ClientAddress.rateLimitKey(client))
        {
            observer.stepFailed(
                .start, provider: provider.id, code: .tooManyRequests, latencyMilliseconds: nil, reason: nil)
            throw APIError(
                .tooManyRequests, "too many sign-ins started from this address; retry in \(seconds) s",
                retryAfterSeconds: seconds)
        }
        do {
            let answer = try await begin(request)
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
    func startImmediately(
        _ fields: [URLFormField], cookieHeaders: [String] = [], fetchMetadata: FetchMetadata = FetchMetadata()
    ) -> Result<StartAnswer, APIError>? {
        let began = now()
        let request: StartRequest
        do {
            request = try StartRequest(
                fields: fields, fetchMetadata: fetchMetadata, providers: providers, settings: settings)
        } catch {
            return .failure(error)
        }
        let provider = request.provider
        guard let begun = drivers[provider].beginAtOnce(request) else { return nil }
        do {
            let started = try begun.get()
            let answer = try cookies.seal(started.session, location: started.location, provider: provider)
            return .success(self.started(answer, provider: provider, cookieHeaders: cookieHeaders, began: began))
        } catch {
            return .failure(startFailed(error, provider: provider, began: began))
        }
    }

    /// Whether starting a sign-in with `provider` calls the provider first (the OAuth 1.0a request token, a
    /// discovery not cached): such starts count against the start rate limit (HTTP-API.md §2.4 `startRateLimit`).
    func callsProvider(_ provider: ProviderDescriptor) async -> Bool {
        await drivers[provider].beginCallsProvider()
    }

    /// The provider's driver begins the sign-in; its pending sign-in is sealed into the cookie.
    func begin(_ request: StartRequest) async throws(APIError) -> StartAnswer {
        let started = try await drivers[request.provider].begin(request)
        return try cookies.seal(started.session, location: started.location, provider: request.provider)
    }

    /// A start that succeeded: the evictions it makes, told to the observer.
    private func started(_ answer: StartAnswer, provider: ProviderDescriptor, cookieHeaders: [String], began: Date)
        -> StartAnswer
    {
        var answer = answer
        answer.evictions = cookies.evictions(cookieHeaders)
        observer.stepSucceeded(
            .start, provider: provider.id, latencyMilliseconds: SignInFlow.milliseconds(since: began, now: now))
        return answer
    }

    /// A start that failed after its request was checked, told to the observer.
    private func startFailed(_ error: APIError, provider: ProviderDescriptor, began: Date) -> APIError {
        observer.stepFailed(
            .start, provider: provider.id, code: error.code,
            latencyMilliseconds: SignInFlow.milliseconds(since: began, now: now), reason: error.message)
        return error
    }
}
