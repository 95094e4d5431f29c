import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerProtocols
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
/// afterwards every outcome is a 303 back to the app.
extension SignInFlow {
    /// Whether `fields` are an IdP's authorization response rather than a start request.
    package static func isCallback(_ fields: [URLFormField]) -> Bool {
        guard fields.first(named: "providerId") == nil else { return false }
        return ["state", "code", "error", "oauth_token", "oauth_verifier", "denied"].contains { name in
            fields.first(named: name) != nil
        }
    }

    /// Handles an authorization response carried by a browser whose `Cookie` header fields are `cookieHeaders`;
    /// `formPost` says it came as the IdP's cross-site POST. `client` is the browser's address, charged to the start
    /// rate limit when the callback will call the provider (nil: not charged).
    package func callback(_ fields: [URLFormField], cookieHeaders: [String], formPost: Bool, client: String? = nil)
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
            let result: StoredResult
            switch provider.protocolKind {
            case .oauth1: result = try await completeOAuth1(fields, session: session, provider: provider)
            case .oauth2, .oidc: result = try await completeOAuth2(fields, session: session, provider: provider)
            }
            let code = try await saveResult(result, code: session.deviceResultCode)
            observer.stepSucceeded(
                .callback, provider: session.providerID, latencyMilliseconds: milliseconds(since: began))
            if session.deviceResultCode != nil { return deviceDoneURL(.signedIn) }
            var back = [URLFormField(name: "code", value: code)]
            if let eventID = session.eventID { back.append(URLFormField(name: "eventId", value: eventID)) }
            return (session.resultDelivery ?? .query).appending(back, to: session.redirectURL)
        } catch {
            observer.stepFailed(
                .callback, provider: session.providerID, code: error.code,
                latencyMilliseconds: milliseconds(since: began), reason: error.message)
            if let deviceResultCode = session.deviceResultCode {
                return await deviceCallbackFailed(error, resultCode: deviceResultCode)
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
        /// Whether the callback holds one of ``SignInFlow/providerCalls``' permits, to release once it is answered.
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
        let refused = { (reason: String, session: PendingSession?) in
            OpenFailure(
                refusal: APIError(
                    .invalidState,
                    "\(reason); a sign-in can only be completed in the browser that started it, once, before it "
                        + "expires: start the sign-in again from the app"),
                cookieName: cookieName, session: session)
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
            throw OpenFailure(refusal: Self.storeFailure(error), cookieName: nil, storeFailed: true)
        }
        guard recorded else {
            if holdsPermit { providerCalls.release() }
            throw refused("this sign-in was already completed", session)
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

    private func completeOAuth1(_ fields: [URLFormField], session: PendingSession, provider: ProviderDescriptor)
        async throws(CallbackFailure) -> StoredResult
    {
        if fields.first(named: "denied") != nil {
            throw .cancelled("the user denied the sign-in at \(provider.id)")
        }
        guard let verifier = fields.first(named: "oauth_verifier"), !verifier.isEmpty else {
            throw .provider("\(provider.id) sent no oauth_verifier")
        }
        guard let client = provider.oauth1Client(http: http, timeout: settings.providerTimeout, now: now),
            let requestToken = session.requestToken, let requestTokenSecret = session.requestTokenSecret
        else { throw .provider("\(provider.id) lacks OAuth 1.0a endpoints or credentials") }
        let credentials: OAuth1Client.TokenCredentials
        do {
            credentials = try await client.accessToken(
                requestToken: requestToken, requestTokenSecret: requestTokenSecret, verifier: verifier)
        } catch {
            throw .provider("the \(provider.id) access-token call failed: \(error)")
        }
        var document: JSONValue?
        if let profileURL = provider.endpoints.profile {
            do {
                document = try await client.signedGET(
                    url: profileURL.absoluteString, token: credentials.token, tokenSecret: credentials.secret)
            } catch {
                throw .provider("the \(provider.id) profile call failed: \(error)")
            }
        }
        let profile: ProviderProfile
        do {
            profile = try ProfileMapper.twitter(
                document, accessTokenFields: credentials.extraFields, trustsEmail: provider.trustsEmail)
        } catch {
            throw .provider("the \(provider.id) profile is unusable: \(error)")
        }
        return result(
            session: session, credential: IdPCredential(accessToken: credentials.token, secret: credentials.secret),
            profile: profile)
    }

    private func completeOAuth2(_ fields: [URLFormField], session: PendingSession, provider: ProviderDescriptor)
        async throws(CallbackFailure) -> StoredResult
    {
        let endpoints: ResolvedEndpoints
        do {
            endpoints = try await resolvedEndpoints(provider)
        } catch {
            throw .provider(error.message)
        }
        // RFC 9207: the response must come from the issuer we sent the user to.
        if let expected = endpoints.issuer, case .exact(let issuer) = expected {
            if let iss = fields.first(named: "iss") {
                guard ConstantTime.equals(iss, issuer) else {
                    throw .provider("the authorization response names another issuer (RFC 9207 iss mismatch)")
                }
            } else if endpoints.sendsIssParameter {
                throw .provider("the authorization response lacks the iss parameter its issuer promises (RFC 9207)")
            }
        }
        if let error = fields.first(named: "error") {
            let code = Self.safeErrorCode(error)
            if code == "access_denied" { throw .cancelled("the user denied the sign-in at \(provider.id)") }
            if Self.interactionRequiredErrors.contains(code) {
                throw .interactionRequired(
                    "\(provider.id) answered error=\(code): it cannot sign the user in without their interaction; "
                        + "start the sign-in again without prompt=none")
            }
            throw .provider("\(provider.id) answered error=\(code)")
        }
        guard let code = fields.first(named: "code"), !code.isEmpty else {
            throw .provider("\(provider.id) sent neither code nor error")
        }
        guard let tokenEndpoint = endpoints.token, let verifier = session.codeVerifier else {
            throw .provider("\(provider.id) has no token endpoint; set endpoints.token")
        }
        let answer: OAuth2TokenClient.Answer
        do {
            let client = try provider.tokenClient(
                endpoint: tokenEndpoint, http: http, timeout: settings.providerTimeout)
            answer = try await client.exchange(code: code, redirectURI: settings.redirectURI, codeVerifier: verifier)
        } catch let error as OAuth2ClientError {
            throw .provider("the \(provider.id) token exchange failed: \(error)")
        } catch {
            throw .provider("the \(provider.id) client secret could not be made: \(error)")
        }
        var credential = IdPCredential(answer)
        credential.nonce = session.nonce
        let profile: ProviderProfile
        if provider.protocolKind == .oidc {
            profile = try await oidcProfile(
                credential: credential, session: session, provider: provider, endpoints: endpoints)
        } else {
            profile = try await oauth2Profile(credential: credential, provider: provider, endpoints: endpoints)
        }
        return result(session: session, credential: credential, profile: profile)
    }

    private func oidcProfile(
        credential: IdPCredential, session: PendingSession, provider: ProviderDescriptor, endpoints: ResolvedEndpoints
    ) async throws(CallbackFailure) -> ProviderProfile {
        guard let idToken = credential.idToken else { throw .provider("\(provider.id) returned no id_token") }
        guard let jwks = endpoints.jwks, let issuer = endpoints.issuer else {
            throw .provider("\(provider.id) has no JWKS or issuer to check its id_token with")
        }
        // The token carries the hash of the raw nonce sealed in the cookie (OIDCNonce, HTTP-API.md §3.1).
        let expectedNonce: String?
        do {
            expectedNonce = try session.nonce.map(OIDCNonce.hashed)
        } catch {
            throw .internal("the nonce could not be hashed: \(error)")
        }
        let expectations = IDTokenExpectations(
            issuer: issuer, clientID: provider.clientID, nonce: expectedNonce, jwksURI: jwks.absoluteString, now: now(),
            allowedAlgorithms: provider.idTokenAlgorithms.isEmpty ? [.rs256] : provider.idTokenAlgorithms)
        let claims: IDTokenClaims
        do {
            claims = try await validator.validate(idToken, expecting: expectations)
        } catch {
            throw .provider("the \(provider.id) id_token was refused: \(error)")
        }
        var userInfo: JSONValue?
        if let userInfoURL = endpoints.userInfo, let accessToken = credential.accessToken {
            do {
                let document = try await OAuth2UserInfoClient(http: http, timeout: settings.providerTimeout).fetch(
                    url: userInfoURL.absoluteString, accessToken: accessToken)
                try claims.checkUserInfoSubject(document)
                userInfo = document
            } catch let error as OIDCError {
                throw .provider("the \(provider.id) userinfo is refused: \(error)")
            } catch {
                throw .provider("the \(provider.id) userinfo call failed: \(error)")
            }
        }
        do {
            return try ProfileMapper.oidc(claims: claims.raw, userInfo: userInfo, trustsEmail: provider.trustsEmail)
        } catch {
            throw .provider("the \(provider.id) profile is unusable: \(error)")
        }
    }

    private func oauth2Profile(credential: IdPCredential, provider: ProviderDescriptor, endpoints: ResolvedEndpoints)
        async throws(CallbackFailure) -> ProviderProfile
    {
        guard let userInfoURL = endpoints.userInfo, let accessToken = credential.accessToken else {
            throw .provider("\(provider.id) has no userInfo endpoint to read the profile from; set endpoints.userInfo")
        }
        let client = OAuth2UserInfoClient(http: http, timeout: settings.providerTimeout)
        let document: JSONValue
        do {
            document = try await client.fetch(url: userInfoURL.absoluteString, accessToken: accessToken)
        } catch {
            throw .provider("the \(provider.id) profile call failed: \(error)")
        }
        var secondary: JSONValue?
        if let emails = provider.emailsEndpoint {
            // GitHub's /user/emails is only for the verified primary address; without it the profile has no e-mail.
            secondary = try? await client.fetch(url: emails.absoluteString, accessToken: accessToken)
        }
        do {
            return try ProfileMapper.profile(
                provider.profileMapping, document: document, secondary: secondary, trustsEmail: provider.trustsEmail)
        } catch {
            throw .provider("the \(provider.id) profile is unusable: \(error)")
        }
    }

    private func result(session: PendingSession, credential: IdPCredential, profile: ProviderProfile) -> StoredResult {
        StoredResult(
            providerID: session.providerID, authType: session.authType, eventID: session.eventID,
            resultChallenge: session.resultChallenge, credential: credential, profile: profile,
            requestURI: settings.redirectURI, createdAt: now())
    }

    /// Keeps the result under a fresh code, or under `given` (a device sign-in's, HTTP-API.md §3.9).
    private func saveResult(_ result: StoredResult, code given: String? = nil) async throws(CallbackFailure) -> String {
        let code: String
        let sealed: [UInt8]
        do {
            code = try given ?? SecureRandom.base64URLString(byteCount: 32)
            sealed = try ResultSeal.seal(result.json.serialized, code: code)
        } catch {
            throw .internal("the result could not be stored")
        }
        do {
            try await store.insertResult(
                code: code, payload: sealed, expiresAt: now().addingTimeInterval(settings.resultTTL.timeInterval))
        } catch {
            throw .internal("the result could not be stored: \(Self.storeFailure(error).message)")
        }
        return code
    }

    /// The authorization errors of a `prompt=none` request that needs the user (OIDC Core §3.1.2.6): the app gets
    /// `interaction-required` for them, not `provider-error` (HTTP-API.md §3.2).
    static let interactionRequiredErrors: Set<String> = [
        "interaction_required", "login_required", "consent_required", "account_selection_required",
    ]

    /// An IdP `error` value reduced to the RFC 6749 error character set, so it is safe to echo.
    package static func safeErrorCode(_ error: String) -> String {
        let kept = error.unicodeScalars.filter {
            $0.isASCII
                && ($0 == "_" || $0 == "." || $0 == "-" || $0.properties.isAlphabetic || ("0"..."9").contains($0))
        }
        let text = String(String.UnicodeScalarView(kept.prefix(64)))
        return text.isEmpty ? "unknown" : text
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
