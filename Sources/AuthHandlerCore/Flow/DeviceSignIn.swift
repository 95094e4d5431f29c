import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerStore
import AuthHandlerSystem
import Foundation

/// The device sign-in of RFC 8628 in front of every provider: HTTP-API.md §3.9. The device asks for a code pair,
/// the user types the user code in a browser and signs in through the normal start and callback, and the callback
/// keeps the result for the polling device instead of sending it to an app. This part issues the codes and answers the
/// confirmation page; "Continue" starts through ``SignInStart``, the poll is ``DevicePolling``.
struct DeviceSignIn: Sendable {
    /// The device sign-in's own settings, the state keys its requests are sealed under, and the origin.
    let settings: SignInFlow.Settings
    let providers: ProviderRegistry
    /// Where device requests, grants and decisions are kept (HTTP-API.md §3.9).
    let store: any DeviceStore
    /// "Continue" is a start (HTTP-API.md §3.1).
    let starts: SignInStart
    /// The wrong-code limit per address.
    let codeEntries: DeviceCodeEntryLimit
    /// The most bytes of an `idToken` a device request keeps.
    static let maximumIDTokenBytes = 16_384

    /// The decisions kept for the device, and the verification URI.
    let outcomes: DeviceOutcomes
    /// The per-client limit issues and "Continue" are charged to (HTTP-API.md §2.4).
    let startLimiter: StartRateLimiter
    /// Told how each step ended; it logs and counts (docs/ARCHITECTURE.md, `Observability`).
    let observer: any SignInObserver
    let now: WallClock

    // MARK: - POST /__/auth/device

    /// Issues a device code and user code for a request from `client` (RFC 8628 §3.1, §3.2), charged to the
    /// client's `startRateLimit`.
    func issueDevice(_ fields: [URLFormField], client: String) async throws(APIError) -> DeviceIssue {
        let device = settings.deviceAuthorization
        let ask = try DeviceAsk(fields: fields, providers: providers, settings: settings)
        let provider = ask.provider
        let idToken = ask.idToken
        if case .limited(let seconds) = startLimiter.admit(ClientAddress.rateLimitKey(client)) {
            throw APIError(
                .tooManyRequests, "too many sign-ins started from this address; retry in \(seconds) s",
                retryAfterSeconds: seconds)
        }
        let created = now()
        let expires = created.addingTimeInterval(TimeInterval(device.codeLifetimeSeconds))
        let deviceCode: String
        let resultCode: String
        let sealedGrant: [UInt8]
        do {
            deviceCode = try SecureRandom.base64URLString(byteCount: 32)
            resultCode = try DeviceAuthorization.resultCode(deviceCode: deviceCode)
            let grant = DeviceGrant(expiresAt: expires, interval: device.intervalSeconds, idToken: idToken)
            sealedGrant = try ResultSeal.seal(try SignInFlow.encode(grant), code: deviceCode)
        } catch {
            throw APIError(.internalError, "the device codes could not be made")
        }
        let request = DeviceRequest(
            providerID: provider.id, scopes: ask.scopes, customParameters: ask.customParameters,
            authType: ask.authType, resultChallenge: ask.resultChallenge, client: client, createdAt: created,
            expiresAt: expires, resultCode: resultCode)
        let userCode = try await storeDeviceRequest(request)
        do {
            // Kept one lifetime past expiry, so a late poll is told expired_token rather than invalid_grant.
            try await store.putDeviceRecord(
                kind: .grant, key: DeviceAuthorization.grantKey(deviceCode: deviceCode), payload: sealedGrant,
                expiresAt: expires.addingTimeInterval(TimeInterval(device.codeLifetimeSeconds)))
        } catch {
            throw SignInFlow.storeFailure(error)
        }
        observer.stepSucceeded(
            .deviceIssue, provider: provider.id, latencyMilliseconds: SignInFlow.milliseconds(since: created, now: now))
        let uri = outcomes.verificationURI
        return DeviceIssue(
            deviceCode: deviceCode, userCode: DeviceAuthorization.displayed(userCode), verificationURI: uri,
            verificationURIComplete: uri + "?user_code=" + DeviceAuthorization.displayed(userCode),
            expiresIn: device.codeLifetimeSeconds, interval: device.intervalSeconds)
    }

    /// Keeps `request` under a fresh user code, returned. The store refuses a second record under one key,
    /// atomically across instances (`.conflict`): a user code already in use (one chance in 10^7 with a thousand
    /// pending) is drawn again, twice at most; a third in use is answered as a store that cannot serve, `503`.
    private func storeDeviceRequest(_ request: DeviceRequest) async throws(APIError) -> String {
        for attempt in 1...3 {
            let userCode: String
            let sealedRequest: String
            do {
                userCode = try DeviceAuthorization.makeUserCode()
                sealedRequest = try settings.stateKeys.seal(
                    try SignInFlow.encode(request), context: DeviceAuthorization.requestContext)
            } catch {
                throw APIError(.internalError, "the device codes could not be made")
            }
            guard let requestKey = DeviceAuthorization.requestKeys(userCode: userCode, keys: settings.stateKeys).first
            else { throw APIError(.internalError, "the device codes could not be made") }
            do {
                try await store.putDeviceRecord(
                    kind: .request, key: requestKey, payload: Array(sealedRequest.utf8), expiresAt: request.expiresAt)
                return userCode
            } catch {
                guard error.kind == .conflict else { throw SignInFlow.storeFailure(error) }
                if attempt == 3 { throw SignInFlow.storeFailure(StoreError(.unavailable, detail: error.detail)) }
            }
        }
        throw APIError(.internalError, "the device codes could not be made")
    }

    // MARK: - The pages

    /// The confirmation page's facts for the user code `typed`, entered from `client`; wrong codes are limited per
    /// address (RFC 8628 §5.1). Sets up the browser's confirmation cookie, keeping the value it already holds. A code
    /// that was already continued or cancelled gets no confirmation (HTTP-API.md §3.9).
    func deviceConfirmation(userCode typed: String, client: String, cookieHeaders: [String])
        async throws(APIError) -> DeviceConfirmationAnswer
    {
        let entryKey = try await codeEntries.charge(from: client)
        guard let userCode = DeviceAuthorization.normalizedUserCode(typed),
            let request = try await deviceRequest(userCode: userCode), request.expiresAt > now()
        else {
            throw APIError(
                .invalidRequest,
                "this code is not one we know, or it has expired; check the code your terminal shows, "
                    + "or run the command again for a new one")
        }
        // A code that exists was no guess: the entry is given back, whether or not it was decided already.
        await codeEntries.refund(entryKey)
        if try await deviceDecided(request) {
            return .alreadyDecided(userCode: DeviceAuthorization.displayed(userCode))
        }
        let nonce =
            SignInCookie.values(named: deviceCookieName, in: cookieHeaders).first { Base64.urlDecode($0)?.count == 32 }
        let cookieNonce: String
        do {
            cookieNonce = try nonce ?? SecureRandom.base64URLString(byteCount: 32)
        } catch {
            throw APIError(.internalError, "the random generator failed")
        }
        guard let token = deviceFormToken(nonce: cookieNonce, userCode: userCode) else {
            throw APIError(.internalError, "the confirmation form could not be made")
        }
        return .confirm(
            confirmationFacts(
                request, userCode: userCode, formToken: token,
                setCookie: "\(deviceCookieName)=\(cookieNonce); Path=/; Max-Age="
                    + "\(settings.deviceAuthorization.codeLifetimeSeconds); HttpOnly"
                    + (settings.httpsOrigin ? "; Secure" : "") + "; SameSite=Strict"))
    }

    /// What the confirmation page shows of `request`: exactly what "Continue" will ask the provider for, with the
    /// scopes the provider is configured with apart from those the device added, and every custom parameter
    /// (HTTP-API.md §3.9).
    private func confirmationFacts(_ request: DeviceRequest, userCode: String, formToken: String, setCookie: String)
        -> DeviceConfirmation
    {
        let provider = providers[request.providerID]
        let start = provider.map { provider in
            StartRequest(deviceRequest: request, provider: provider, customParameters: [])
        }
        // OAuth 1.0a has no scope (RFC 5849), so a start sends none and the page lists none.
        let sendsScopes = provider.map { $0.protocolKind != .oauth1 } ?? true
        let configured = sendsScopes ? start?.configuredScopes ?? [] : []
        let sent = sendsScopes ? start?.providerScopes ?? request.scopes : []
        // The parameters as "Continue" reads them again (startDeviceSignIn), so the page lists what it sends.
        let parameters = provider.flatMap { try? StartRequest.customParameters(request.customParameters, provider: $0) }
        return DeviceConfirmation(
            userCode: DeviceAuthorization.displayed(userCode),
            providerName: provider?.displayName ?? request.providerID, authType: request.authType,
            configuredScopes: configured, requestedScopes: sent.filter { !configured.contains($0) },
            customParameters: parameters ?? [], client: request.client,
            age: max(0, Int(now().timeIntervalSince(request.createdAt))), formToken: formToken, setCookie: setCookie)
    }

    /// Whether `request` was already continued or cancelled: the store holds its decision
    /// (``DeviceAuthorization/usedKey(resultCode:)``).
    private func deviceDecided(_ request: DeviceRequest) async throws(APIError) -> Bool {
        do {
            return try await store.isDecided(
                key: DeviceAuthorization.usedKey(resultCode: request.resultCode), now: now())
        } catch {
            throw SignInFlow.storeFailure(error)
        }
    }

    /// Answers the confirmation form (`user_code`, `confirm`, `decision` = `continue` or `cancel`).
    ///
    /// The form must come with this browser's `SameSite=Strict` confirmation cookie and a `confirm` value that is an
    /// HMAC of that cookie and the user code: a page on another site can neither send the cookie nor know it, so it
    /// cannot make someone's browser confirm a code it chose (HTTP-API.md §3.9).
    func deviceDecision(_ fields: [URLFormField], client: String, cookieHeaders: [String])
        async throws(APIError) -> DeviceDecisionAnswer
    {
        let (userCode, decision) = try checkedDecision(fields, cookieHeaders: cookieHeaders)
        guard let request = try await deviceRequest(userCode: userCode), request.expiresAt > now() else {
            throw APIError(
                .invalidRequest, "this code has expired; run the command on your device again for a new one")
        }
        let first: Bool
        do {
            first = try await store.decideOnce(
                key: DeviceAuthorization.usedKey(resultCode: request.resultCode), expiresAt: request.expiresAt)
        } catch {
            throw SignInFlow.storeFailure(error)
        }
        guard first else {
            throw APIError(
                .invalidRequest, "this code was already used; run the command on your device again for a new one")
        }
        guard decision == "continue" else {
            try await outcomes.record(
                DeviceDecision(outcome: .declined, message: "the sign-in was declined on the confirmation page"),
                resultCode: request.resultCode)
            observer.stepFailed(
                .deviceDecline, provider: request.providerID, code: .userCancelled, latencyMilliseconds: nil,
                reason: "declined on the confirmation page")
            return .declined
        }
        return try await startDeviceSignIn(request, client: client, cookieHeaders: cookieHeaders)
    }

    /// The user code and decision of a confirmation form, after checking that it came from the confirmation page in
    /// this browser: its `confirm` must be the HMAC of the browser's confirmation cookie and the user code.
    private func checkedDecision(_ fields: [URLFormField], cookieHeaders: [String]) throws(APIError)
        -> (userCode: String, decision: String)
    {
        for name in ["user_code", "confirm", "decision"] where fields.all(named: name).count != 1 {
            throw APIError(.invalidRequest, "\(name) must be given once; use the form on the confirmation page")
        }
        let refused = APIError(
            .invalidRequest,
            "this confirmation did not come from the confirmation page in this browser; open the link your terminal "
                + "shows, or enter the code again")
        guard let typed = fields.first(named: "user_code"),
            let userCode = DeviceAuthorization.normalizedUserCode(typed),
            let presented = fields.first(named: "confirm"),
            let decision = fields.first(named: "decision"), ["continue", "cancel"].contains(decision)
        else { throw refused }
        let nonces = SignInCookie.values(named: deviceCookieName, in: cookieHeaders)
        guard
            nonces.contains(where: { nonce in
                deviceFormToken(nonce: nonce, userCode: userCode).map { ConstantTime.equals($0, presented) } ?? false
            })
        else { throw refused }
        return (userCode, decision)
    }

    /// "Continue": the start of HTTP-API.md §3.1 for the device's provider, scopes and parameters, carrying its
    /// result code into the pending sign-in.
    private func startDeviceSignIn(_ request: DeviceRequest, client: String, cookieHeaders: [String])
        async throws(APIError) -> DeviceDecisionAnswer
    {
        guard let provider = providers[request.providerID] else {
            throw APIError(.invalidProvider, "\(request.providerID) is no longer configured")
        }
        if await starts.callsProvider(provider),
            case .limited(let seconds) = startLimiter.admit(ClientAddress.rateLimitKey(client))
        {
            throw APIError(
                .tooManyRequests, "too many sign-ins started from this address; retry in \(seconds) s",
                retryAfterSeconds: seconds)
        }
        let began = now()
        do {
            // Checked again as when it was asked for, so a request kept from before a rule is held to it too.
            let start = StartRequest(
                deviceRequest: request, provider: provider,
                customParameters: try DeviceAsk.customParameters(request.customParameters, provider: provider))
            var answer = try await starts.begin(start)
            // As on any start: a browser keeps at most maximumPendingPerBrowser pending sign-ins.
            answer.evictions = starts.cookies.evictions(cookieHeaders)
            observer.stepSucceeded(
                .start, provider: provider.id, latencyMilliseconds: SignInFlow.milliseconds(since: began, now: now))
            return .started(answer)
        } catch {
            observer.stepFailed(
                .start, provider: provider.id, code: error.code,
                latencyMilliseconds: SignInFlow.milliseconds(since: began, now: now),
                reason: error.message)
            try? await outcomes.record(
                DeviceDecision(outcome: .failed, message: error.message), resultCode: request.resultCode)
            throw error
        }
    }

    /// The browser's confirmation cookie: `ah-device-confirm`, `__Host-` named with an https `publicURL` (not
    /// `auth-handler-`, the prefix of pending sign-ins).
    var deviceCookieName: String { (settings.httpsOrigin ? "__Host-" : "") + "ah-device-confirm" }

    /// The confirmation form's `confirm` value for a cookie nonce and a user code.
    private func deviceFormToken(nonce: String, userCode: String) -> String? {
        DeviceAuthorization.mac(
            Array("\(nonce)\u{0}\(userCode)".utf8), stateKey: settings.stateKeys.current, purpose: "confirm form")
    }

    /// The device request under a normalized user code, or nil.
    private func deviceRequest(userCode: String) async throws(APIError) -> DeviceRequest? {
        for key in DeviceAuthorization.requestKeys(userCode: userCode, keys: settings.stateKeys) {
            let record: [UInt8]?
            do {
                record = try await store.deviceRecord(kind: .request, key: key, now: now())
            } catch {
                throw SignInFlow.storeFailure(error)
            }
            guard let payload = record else { continue }
            if let plaintext = settings.stateKeys.open(
                String(decoding: payload, as: UTF8.self), context: DeviceAuthorization.requestContext),
                let request = SignInFlow.decode(DeviceRequest.self, from: plaintext)
            {
                return request
            }
        }
        return nil
    }

}

extension StartRequest {
    /// The start "Continue" makes for a device request: its provider, scopes and parameters, and the device's
    /// result code, returning to the device pages rather than to an app.
    init(deviceRequest request: DeviceRequest, provider: ProviderDescriptor, customParameters: [URLFormField]) {
        self.provider = provider
        redirectURL = ""
        authType = request.authType
        eventID = nil
        requestedScopes = request.scopes
        self.customParameters = customParameters
        resultChallenge = request.resultChallenge
        deviceResultCode = request.resultCode
    }
}

/// A device request's parameters (`POST /__/auth/device`), each checked as a start checks it (HTTP-API.md §3.9).
struct DeviceAsk {
    let provider: ProviderDescriptor
    let authType: AuthType
    let scopes: [String]
    /// The `customParameters` JSON as given, checked; the start "Continue" makes parses it again.
    let customParameters: String?
    let resultChallenge: String?
    let idToken: String?

    init(fields: [URLFormField], providers: ProviderRegistry, settings: SignInFlow.Settings) throws(APIError) {
        for name in ["providerId", "scopes", "customParameters", "authType", "idToken", "resultChallenge"]
        where fields.all(named: name).count > 1 {
            throw APIError(.invalidRequest, "\(name) is given more than once; send it once")
        }
        provider = try StartRequest.provider(fields.first(named: "providerId"), in: providers)
        let offered = settings.deviceAuthorization.providers
        guard offered.isEmpty || offered.contains(provider.id) else {
            throw APIError(
                .invalidProvider,
                "\(provider.id) is not offered for device sign-in; offered: \(offered.joined(separator: ", "))")
        }
        authType = try StartRequest.authType(fields.first(named: "authType"))
        scopes = try StartRequest.scopes(fields.first(named: "scopes"))
        customParameters = fields.first(named: "customParameters")
        _ = try Self.customParameters(customParameters, provider: provider)
        resultChallenge = try StartRequest.resultChallenge(
            fields.first(named: "resultChallenge"), required: settings.requireResultChallenge)
        idToken = fields.first(named: "idToken").flatMap { $0.isEmpty ? nil : $0 }
        if authType.requiresIDToken, idToken == nil {
            throw APIError(
                .invalidRequest, "idToken is required for \(authType.rawValue): send the user's current ID token")
        }
        if let idToken, idToken.utf8.count > DeviceSignIn.maximumIDTokenBytes {
            throw APIError(.invalidRequest, "idToken is longer than \(DeviceSignIn.maximumIDTokenBytes) bytes")
        }
    }

    /// `customParameters` checked as a start checks them (HTTP-API.md §3.1), and none that asks the provider to show
    /// the person no screens (``SilentSignInParameters``, HTTP-API.md §3.9).
    static func customParameters(_ text: String?, provider: ProviderDescriptor) throws(APIError) -> [URLFormField] {
        let parameters = try StartRequest.customParameters(text, provider: provider)
        try SilentSignInParameters.refuse(parameters)
        return parameters
    }
}
