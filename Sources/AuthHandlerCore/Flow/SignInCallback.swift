import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerProtocols
import AuthHandlerStore
import AuthHandlerSystem
import Foundation

/// How a callback is answered: a `303` to the app or a refusal, and the `Set-Cookie` that clears the sign-in's
/// cookie (nil when the cookie is kept: a `503` before the state was recorded, so the browser can retry).
package struct CallbackAnswer: Sendable {
    package enum Outcome: Sendable {
        /// `303 See Other` to the app's redirect URL (with `code` or `error`).
        case redirect(String)
        /// A `400` page (or `503`); never a redirect.
        case refused(APIError)
    }

    package var outcome: Outcome
    package var clearCookie: String?
}

/// The IdP's callback: HTTP-API.md §3.2. Only the browser that started the sign-in can complete it: its cookie must
/// hold the sealed pending sign-in for the callback's `state`. The state is recorded as used before any exchange;
/// afterwards every outcome is a 303 back to the app. The provider's driver checks and exchanges the IdP's answer; this
/// part opens the cookie, records the state, seals and keeps the result, and reports.
struct SignInCallback: Sendable {
    /// The state keys, the redirect policy (checked again at the callback) and the redirect URI.
    let settings: SignInFlow.Settings
    let providers: ProviderRegistry
    /// Each provider's protocol steps (``SignInProtocolDriver``).
    let drivers: SignInDrivers
    /// Where the state is recorded as used, once (HTTP-API.md §3.2).
    let store: any SessionStore
    /// Seals and keeps the result under its code.
    let results: ResultStorage

    /// Whether `fields` are an IdP's authorization response rather than a start request.
    static func isCallback(_ fields: [URLFormField]) -> Bool {
        guard fields.first(named: "providerId") == nil else { return false }
        return ["state", "code", "error", "oauth_token", "oauth_verifier", "denied"].contains { name in
            fields.first(named: name) != nil
        }
    }

    /// Where a device sign-in's callback ends (HTTP-API.md §3.9).
    let deviceOutcomes: DeviceOutcomes
    /// The per-client limit a callback that calls the provider is charged to (HTTP-API.md §2.4).
    let startLimiter: StartRateLimiter
    /// The provider calls in flight across all clients.
    let providerCalls: OutboundCallLimit
    /// Told how each callback ended; it logs and counts (docs/ARCHITECTURE.md, `Observability`).
    let observer: any SignInObserver
    let now: WallClock

    /// Handles an authorization response carried by a browser whose `Cookie` header fields are `cookieHeaders`;
    /// `formPost` says it came as the IdP's cross-site POST. `client` is the browser's address, charged to the start
    /// rate limit when the callback will call the provider (nil: not charged).
    func callback(_ fields: [URLFormField], cookieHeaders: [String], formPost: Bool, client: String? = nil)
        async -> CallbackAnswer
    {
        let began = now()
        // The cookie is cleared with the attributes it was set with, which follow its provider; when it did not open,
        // the request's method is the best guess (a form_post callback is a POST).
        let attributes = { (session: PendingSession?) in
            SignInCookie.Attributes(
                httpsOrigin: self.settings.httpsOrigin,
                crossSitePost: session.flatMap { self.providers[$0.providerID] }?.usesFormPost ?? formPost)
        }
        let opened: OpenedSession
        do {
            opened = try await openSession(fields, cookieHeaders: cookieHeaders, client: client)
        } catch {
            if error.storeFailed { return CallbackAnswer(outcome: .refused(error.refusal), clearCookie: nil) }
            observer.stepFailed(
                .callback, provider: nil, code: error.refusal.code, latencyMilliseconds: nil,
                reason: error.refusal.message)
            return CallbackAnswer(
                outcome: .refused(error.refusal),
                clearCookie: error.cookieName.map {
                    SignInCookie.clearing(name: $0, attributes: attributes(error.session))
                })
        }
        let clear = SignInCookie.clearing(name: opened.cookieName, attributes: attributes(opened.session))
        defer { if opened.holdsProviderPermit { providerCalls.release() } }
        let location = await complete(fields, session: opened.session, began: began)
        return CallbackAnswer(outcome: .redirect(location), clearCookie: clear)
    }

    /// Exchanges and validates; the app URL to send the browser to, with `code` or `error`.
    private func complete(_ fields: [URLFormField], session: PendingSession, began: Date) async -> String {
        do throws(CallbackFailure) {
            guard let provider = providers[session.providerID] else {
                throw CallbackFailure.provider("\(session.providerID) is no longer configured")
            }
            let signedIn = try await drivers[provider].complete(fields, session: session)
            let code = try await results.save(
                result(session: session, credential: signedIn.credential, profile: signedIn.profile),
                code: session.deviceResultCode)
            observer.stepSucceeded(
                .callback, provider: session.providerID,
                latencyMilliseconds: SignInFlow.milliseconds(since: began, now: now))
            if session.deviceResultCode != nil { return deviceOutcomes.doneURL(.signedIn) }
            var back = [URLFormField(name: "code", value: code)]
            if let eventID = session.eventID { back.append(URLFormField(name: "eventId", value: eventID)) }
            return (session.resultDelivery ?? .query).appending(back, to: session.redirectURL)
        } catch {
            observer.stepFailed(
                .callback, provider: session.providerID, code: error.code,
                latencyMilliseconds: SignInFlow.milliseconds(since: began, now: now), reason: error.message)
            if let deviceResultCode = session.deviceResultCode {
                return await deviceOutcomes.callbackFailed(error, resultCode: deviceResultCode)
            }
            var back = [
                URLFormField(name: "error", value: error.code.rawValue),
                URLFormField(name: "error_description", value: error.message),
            ]
            if let eventID = session.eventID { back.append(URLFormField(name: "eventId", value: eventID)) }
            return (session.resultDelivery ?? .query).appending(back, to: session.redirectURL)
        }
    }

    /// A pending sign-in opened from its cookie and recorded as used.
    private struct OpenedSession {
        var session: PendingSession
        var cookieName: String
        /// Whether the callback holds one of ``SignInCallback/providerCalls``' permits, to release once it is answered.
        var holdsProviderPermit: Bool
    }

    /// A refused callback, and the cookie it names (to clear it; nil keeps the cookie, so the browser can retry).
    private struct OpenFailure: Error {
        var refusal: APIError
        var cookieName: String?
        /// The session its cookie held, when it opened.
        var session: PendingSession? = nil
        /// The store could not record the state: the store's own metrics count that, and the sign-in is not over.
        var storeFailed = false

        /// `400 invalid-state` for `reason`, the cookie `cookieName` cleared.
        static func invalidState(_ reason: String, cookieName: String, session: PendingSession?) -> OpenFailure {
            OpenFailure(
                refusal: APIError(
                    .invalidState,
                    "\(reason); a sign-in can only be completed in the browser that started it, once, before it "
                        + "expires: start the sign-in again from the app"),
                cookieName: cookieName, session: session)
        }
    }

    /// Finds the sign-in's cookie by the callback's `state` (or `oauth_token`), opens it, checks it, admits a callback
    /// that will call the provider (the rate limit of `client`, a permit for the call), and records the state as used,
    /// atomically, before any exchange (HTTP-API.md §3.2). A state that is wrong → 400 `invalid-state`.
    private func openSession(_ fields: [URLFormField], cookieHeaders: [String], client: String?)
        async throws(OpenFailure) -> OpenedSession
    {
        let (presented, isOAuth1) = try Self.presentedState(fields)
        guard !presented.isEmpty, presented.utf8.count <= 512,
            let cookieName = SignInCookie.name(forState: presented, httpsOrigin: settings.httpsOrigin)
        else {
            throw OpenFailure(
                refusal: APIError(
                    .invalidState, "the authorization response's state is empty or too long; start the sign-in again"),
                cookieName: nil)
        }
        let session = try pendingSession(
            cookieName: cookieName, presented: presented, isOAuth1: isOAuth1, cookieHeaders: cookieHeaders)
        // A device sign-in returns to the device pages, never to an app's redirectUrl (HTTP-API.md §3.9).
        let redirectAllowed =
            session.deviceResultCode != nil || settings.redirectPolicy.allows(session.redirectURL)
        var holdsPermit = false
        if redirectAllowed, Self.exchangesCode(fields, isOAuth1: isOAuth1) {
            try admitExchange(client: client)
            holdsPermit = true
        }
        let key = isOAuth1 ? PendingSession.key(requestToken: presented) : PendingSession.key(state: presented)
        let recorded: Bool
        do {
            recorded = try await store.recordUsedState(key: key, expiresAt: session.expiresAt)
        } catch {
            if holdsPermit { providerCalls.release() }
            // Before the state is recorded: the cookie is kept, so the browser can retry.
            throw OpenFailure(refusal: SignInFlow.storeFailure(error), cookieName: nil, storeFailed: true)
        }
        guard recorded else {
            if holdsPermit { providerCalls.release() }
            throw .invalidState("this sign-in was already completed", cookieName: cookieName, session: session)
        }
        observer.pendingEnded(expiresAt: session.expiresAt)
        // Checked again, not only at the start: a reload may have removed the entry while the user was at the
        // provider, and no code goes to a URL the config no longer allows (HTTP-API.md §3.2). The state is used up
        // and nothing is exchanged.
        guard redirectAllowed else {
            throw OpenFailure(
                refusal: APIError(
                    .unauthorizedRedirectURL,
                    "this sign-in's redirectUrl is no longer in allowedRedirectURLs, so no result was issued; "
                        + "start the sign-in again from the app with an allowed redirectUrl"),
                cookieName: cookieName, session: session)
        }
        return OpenedSession(session: session, cookieName: cookieName, holdsProviderPermit: holdsPermit)
    }

    /// The pending sign-in sealed in this browser's cookie `cookieName` (the first of its values that opens under the
    /// state keys), if it holds the `presented` state, compared in full and in constant time, and is unexpired
    /// (HTTP-API.md §3.2); refused with `400 invalid-state` otherwise.
    private func pendingSession(cookieName: String, presented: String, isOAuth1: Bool, cookieHeaders: [String])
        throws(OpenFailure) -> PendingSession
    {
        let refused = { (reason: String, session: PendingSession?) in
            OpenFailure.invalidState(reason, cookieName: cookieName, session: session)
        }
        let values = SignInCookie.values(named: cookieName, in: cookieHeaders)
        guard !values.isEmpty else { throw refused("this browser holds no sign-in for this response", nil) }
        var opened: PendingSession?
        for value in values {
            guard let session = PendingSession.opening(value, cookieName: cookieName, keys: settings.stateKeys) else {
                continue
            }
            opened = session
            break
        }
        guard let session = opened else { throw refused("this browser's sign-in cookie does not open", nil) }
        // The cookie was found by a tag of the state; the state itself is compared in full, in constant time.
        let expected = isOAuth1 ? session.requestToken : session.state
        guard let expected, ConstantTime.equals(expected, presented) else {
            throw refused("the response does not belong to this browser's sign-in", session)
        }
        guard session.expiresAt > now() else { throw refused("this sign-in has expired", session) }
        return session
    }

    /// Whether the callback will call the provider: it carries a code to exchange (OAuth 1.0a: a verifier) rather than
    /// the provider's error or the user's denial.
    private static func exchangesCode(_ fields: [URLFormField], isOAuth1: Bool) -> Bool {
        if isOAuth1 {
            return fields.first(named: "denied") == nil && !(fields.first(named: "oauth_verifier") ?? "").isEmpty
        }
        return fields.first(named: "error") == nil && !(fields.first(named: "code") ?? "").isEmpty
    }

    /// Admits a callback that will call the provider, before its state is recorded (HTTP-API.md §2.4, §3.2): a token
    /// from `client`'s start-rate bucket, so a flood of callbacks cannot make the provider throttle or ban the client
    /// id, and a permit of the provider-call limit, so callbacks from many addresses cannot pile up calls to it
    /// either. Refused with the cookie kept, so the browser can retry: `429` with `Retry-After`, or `503`. Once
    /// admitted, the caller holds a permit.
    private func admitExchange(client: String?) throws(OpenFailure) {
        if let client, case .limited(let seconds) = startLimiter.admit(ClientAddress.rateLimitKey(client)) {
            throw OpenFailure(
                refusal: APIError(
                    .tooManyRequests, "too many sign-ins from this address; reload this page in \(seconds) s",
                    retryAfterSeconds: seconds),
                cookieName: nil)
        }
        guard providerCalls.tryAcquire() else {
            throw OpenFailure(
                refusal: APIError(
                    .unavailable, "too many sign-ins are completing at once; reload this page in a moment",
                    retryAfterSeconds: 1),
                cookieName: nil)
        }
    }

    /// The state the callback presents (`state`, or OAuth 1.0a's `oauth_token` or `denied`) and whether it is OAuth
    /// 1.0a's; refused when a response parameter is repeated or no state is given.
    private static func presentedState(_ fields: [URLFormField]) throws(OpenFailure) -> (String, isOAuth1: Bool) {
        for name in ["state", "code", "oauth_token", "oauth_verifier", "denied", "iss", "error"]
        where fields.all(named: name).count > 1 {
            throw OpenFailure(
                refusal: APIError(
                    .invalidRequest, "the authorization response repeats \(name); start the sign-in again"),
                cookieName: nil)
        }
        if let state = fields.first(named: "state") { return (state, false) }
        if let token = fields.first(named: "oauth_token") ?? fields.first(named: "denied") { return (token, true) }
        throw OpenFailure(
            refusal: APIError(.invalidState, "the authorization response has no state; start the sign-in again"),
            cookieName: nil)
    }

    private func result(session: PendingSession, credential: IdPCredential, profile: ProviderProfile) -> StoredResult {
        StoredResult(
            providerID: session.providerID, authType: session.authType, eventID: session.eventID,
            resultChallenge: session.resultChallenge, credential: credential, profile: profile,
            requestURI: settings.redirectURI, createdAt: now())
    }
}

/// Why a callback failed after its session was consumed; always reported to the app by redirect.
enum CallbackFailure: Error {
    case cancelled(String)
    case interactionRequired(String)
    case provider(String)
    case `internal`(String)

    var code: APIError.Code {
        switch self {
        case .cancelled: .userCancelled
        case .interactionRequired: .interactionRequired
        case .provider: .providerError
        case .internal: .internalError
        }
    }

    var message: String {
        switch self {
        case .cancelled(let message), .interactionRequired(let message), .provider(let message),
            .internal(let message):
            message
        }
    }
}
