import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerStore
import Foundation

/// The device sign-in of RFC 8628 in front of every provider: HTTP-API.md §3.9. The device asks for a code pair,
/// the user types the user code in a browser and signs in through the normal start and callback, and the callback
/// keeps the result for the polling device instead of sending it to an app.
extension SignInFlow {
    /// The most bytes of an `idToken` a device request keeps.
    static let maximumDeviceIDTokenBytes = 16_384

    /// The public URL of the device pages: `{publicURL}/__/auth/device`.
    package var deviceVerificationURI: String {
        let handler = settings.redirectURI
        let base = handler.hasSuffix("/__/auth/handler") ? String(handler.dropLast("/__/auth/handler".count)) : handler
        return base + "/__/auth/device"
    }

    /// The page the browser lands on after a device sign-in's callback.
    func deviceDoneURL(_ outcome: DeviceDoneOutcome) -> String {
        deviceVerificationURI + "/done?outcome=" + outcome.rawValue
    }

    // MARK: - POST /__/auth/device

    /// Issues a device code and user code for a request from `client` (RFC 8628 §3.1, §3.2), charged to the
    /// client's `startRateLimit`.
    package func issueDevice(_ fields: [URLFormField], client: String) async throws(APIError) -> DeviceIssue {
        let device = settings.deviceAuthorization
        let ask = try DeviceAsk(fields: fields, flow: self)
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
            sealedGrant = try ResultSeal.seal(try Self.encode(grant), code: deviceCode)
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
            try await store.insertResult(
                code: DeviceAuthorization.grantKey(deviceCode: deviceCode), payload: sealedGrant,
                expiresAt: expires.addingTimeInterval(TimeInterval(device.codeLifetimeSeconds)))
        } catch {
            throw Self.storeFailure(error)
        }
        observer.stepSucceeded(.deviceIssue, provider: provider.id, latencyMilliseconds: milliseconds(since: created))
        let uri = deviceVerificationURI
        return DeviceIssue(
            deviceCode: deviceCode, userCode: DeviceAuthorization.displayed(userCode), verificationURI: uri,
            verificationURIComplete: uri + "?user_code=" + DeviceAuthorization.displayed(userCode),
            expiresIn: device.codeLifetimeSeconds, interval: device.intervalSeconds)
    }

    /// Keeps `request` under a fresh user code, returned. The store refuses a second record under one key,
    /// atomically across instances: a user code already in use (one chance in 10^7 with a thousand pending) is drawn
    /// again, twice at most.
    private func storeDeviceRequest(_ request: DeviceRequest) async throws(APIError) -> String {
        for attempt in 1...3 {
            let userCode: String
            let sealedRequest: String
            do {
                userCode = try DeviceAuthorization.makeUserCode()
                sealedRequest = try settings.stateKeys.seal(
                    try Self.encode(request), context: DeviceAuthorization.requestContext)
            } catch {
                throw APIError(.internalError, "the device codes could not be made")
            }
            guard let requestKey = DeviceAuthorization.requestKeys(userCode: userCode, keys: settings.stateKeys).first
            else { throw APIError(.internalError, "the device codes could not be made") }
            do {
                try await store.insertResult(
                    code: requestKey, payload: Array(sealedRequest.utf8), expiresAt: request.expiresAt)
                return userCode
            } catch {
                if attempt == 3 { throw Self.storeFailure(error) }
            }
        }
        throw APIError(.internalError, "the device codes could not be made")
    }

    // MARK: - The pages

    /// The confirmation page's facts for the user code `typed`, entered from `client`; wrong codes are limited per
    /// address (RFC 8628 §5.1). Sets up the browser's confirmation cookie, keeping the value it already holds. A code
    /// that was already continued or cancelled gets no confirmation (HTTP-API.md §3.9).
    package func deviceConfirmation(userCode typed: String, client: String, cookieHeaders: [String])
        async throws(APIError) -> DeviceConfirmationAnswer
    {
        let entryKey = try await chargeCodeEntry(from: client)
        guard let userCode = DeviceAuthorization.normalizedUserCode(typed),
            let request = try await deviceRequest(userCode: userCode), request.expiresAt > now()
        else {
            throw APIError(
                .invalidRequest,
                "this code is not one we know, or it has expired; check the code your terminal shows, "
                    + "or run the command again for a new one")
        }
        // A code that exists was no guess: the entry is given back, whether or not it was decided already.
        await refundCodeEntry(entryKey)
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

    /// Whether `request` was already continued or cancelled: the store holds its marker
    /// (``DeviceAuthorization/decidedKey(resultCode:)``).
    private func deviceDecided(_ request: DeviceRequest) async throws(APIError) -> Bool {
        do {
            let key = DeviceAuthorization.decidedKey(resultCode: request.resultCode)
            if case .absent = try await store.peekResult(code: key, now: now()) { return false }
            return true
        } catch {
            throw Self.storeFailure(error)
        }
    }

    /// Answers the confirmation form (`user_code`, `confirm`, `decision` = `continue` or `cancel`).
    ///
    /// The form must come with this browser's `SameSite=Strict` confirmation cookie and a `confirm` value that is an
    /// HMAC of that cookie and the user code: a page on another site can neither send the cookie nor know it, so it
    /// cannot make someone's browser confirm a code it chose (HTTP-API.md §3.9).
    package func deviceDecision(_ fields: [URLFormField], client: String, cookieHeaders: [String])
        async throws(APIError) -> DeviceDecisionAnswer
    {
        let (userCode, decision) = try checkedDecision(fields, cookieHeaders: cookieHeaders)
        guard let request = try await deviceRequest(userCode: userCode), request.expiresAt > now() else {
            throw APIError(
                .invalidRequest, "this code has expired; run the command on your device again for a new one")
        }
        let first: Bool
        do {
            first = try await store.recordUsedState(
                key: DeviceAuthorization.usedKey(resultCode: request.resultCode), expiresAt: request.expiresAt)
        } catch {
            throw Self.storeFailure(error)
        }
        guard first else {
            throw APIError(
                .invalidRequest, "this code was already used; run the command on your device again for a new one")
        }
        // For the page only: the used state just recorded is what refuses a second decision, so a marker the store
        // could not keep costs only the "already used" page (HTTP-API.md §3.9).
        try? await store.insertResult(
            code: DeviceAuthorization.decidedKey(resultCode: request.resultCode),
            payload: DeviceAuthorization.decidedMark,
            expiresAt: request.expiresAt)
        guard decision == "continue" else {
            try await recordDeviceDecision(
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
        if await startCallsProvider(provider),
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
            var answer: StartAnswer
            switch provider.protocolKind {
            case .oauth1: answer = try await startOAuth1(start)
            case .oauth2, .oidc:
                answer = try startOAuth2(start, endpoints: try await resolvedEndpoints(start.provider))
            }
            // As on any start: a browser keeps at most maximumPendingPerBrowser pending sign-ins.
            answer.evictions = evictions(cookieHeaders)
            observer.stepSucceeded(.start, provider: provider.id, latencyMilliseconds: milliseconds(since: began))
            return .started(answer)
        } catch {
            observer.stepFailed(
                .start, provider: provider.id, code: error.code, latencyMilliseconds: milliseconds(since: began),
                reason: error.message)
            try? await recordDeviceDecision(
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
            let lookup: ResultLookup
            do {
                lookup = try await store.peekResult(code: key, now: now())
            } catch {
                throw Self.storeFailure(error)
            }
            guard case .available(let payload) = lookup else { continue }
            if let plaintext = settings.stateKeys.open(
                String(decoding: payload, as: UTF8.self), context: DeviceAuthorization.requestContext),
                let request = Self.decode(DeviceRequest.self, from: plaintext)
            {
                return request
            }
        }
        return nil
    }

    private func recordDeviceDecision(_ decision: DeviceDecision, resultCode: String) async throws(APIError) {
        let key = DeviceAuthorization.decisionKey(resultCode: resultCode)
        let sealed: [UInt8]
        do {
            sealed = try ResultSeal.seal(try Self.encode(decision), code: key)
        } catch {
            throw APIError(.internalError, "the decision could not be stored")
        }
        do {
            try await store.insertResult(
                code: key, payload: sealed,
                expiresAt: now().addingTimeInterval(TimeInterval(2 * settings.deviceAuthorization.codeLifetimeSeconds)))
        } catch {
            throw Self.storeFailure(error)
        }
    }

    /// The callback of a device sign-in failed: the device is told so, the browser lands on the done page.
    func deviceCallbackFailed(_ failure: CallbackFailure, resultCode: String) async -> String {
        let cancelled = failure.code == .userCancelled
        try? await recordDeviceDecision(
            DeviceDecision(outcome: cancelled ? .cancelled : .failed, message: failure.message), resultCode: resultCode)
        return deviceDoneURL(cancelled ? .cancelled : .failed)
    }

    // MARK: - POST /__/auth/device/token

    /// A poll (RFC 8628 §3.4, §3.5): the result once, or why not yet or never.
    package func pollDevice(_ fields: [URLFormField]) async -> DeviceTokenAnswer {
        do throws(DeviceTokenRefusal) {
            let deviceCode = try Self.polledDeviceCode(fields)
            let (grant, resultCode) = try await polledGrant(deviceCode)
            let remaining = max(1, grant.expiresAt.timeIntervalSince(now()))
            let pace = devicePacing.poll(resultCode, interval: grant.interval, lifetime: .seconds(remaining))
            if pace.tooSoon {
                throw DeviceTokenRefusal(
                    "slow_down", "polled sooner than the interval; wait \(pace.interval) s between polls from now on",
                    interval: pace.interval)
            }
            let decisionKey = DeviceAuthorization.decisionKey(resultCode: resultCode)
            if case .available(let sealed) = try await peek(decisionKey),
                let plaintext = ResultSeal.open(sealed, code: decisionKey),
                let decision = Self.decode(DeviceDecision.self, from: plaintext)
            {
                switch decision.outcome {
                case .declined, .cancelled: throw DeviceTokenRefusal("access_denied", decision.message)
                case .failed: throw DeviceTokenRefusal("server_error", decision.message)
                }
            }
            switch try await peek(resultCode) {
            case .available:
                return await deliver(resultCode: resultCode, deviceCode: deviceCode, grant: grant, fields: fields)
            case .claimed:
                throw DeviceTokenRefusal("authorization_pending", "the result is being delivered to another poll")
            case .absent:
                break
            }
            if grant.expiresAt <= now() {
                throw DeviceTokenRefusal("expired_token", "the code expired before anyone signed in; ask for a new one")
            }
            throw DeviceTokenRefusal("authorization_pending", "waiting for the user to enter the code and sign in")
        } catch {
            return .refused(
                error: error.error, description: error.description, status: error.status, interval: error.interval)
        }
    }

    /// The poll's `device_code`, after its `grant_type` (RFC 8628 §3.4).
    private static func polledDeviceCode(_ fields: [URLFormField]) throws(DeviceTokenRefusal) -> String {
        for name in ["grant_type", "device_code", "verifier"] where fields.all(named: name).count > 1 {
            throw DeviceTokenRefusal("invalid_request", "\(name) is given more than once; send it once")
        }
        guard let grantType = fields.first(named: "grant_type") else {
            throw DeviceTokenRefusal("invalid_request", "grant_type is required: \(DeviceAuthorization.grantType)")
        }
        guard grantType == DeviceAuthorization.grantType else {
            throw DeviceTokenRefusal(
                "unsupported_grant_type", "this endpoint takes grant_type=\(DeviceAuthorization.grantType)")
        }
        guard let deviceCode = fields.first(named: "device_code"), !deviceCode.isEmpty, deviceCode.utf8.count <= 512
        else {
            throw DeviceTokenRefusal(
                "invalid_request", "device_code is required: the device_code of POST /__/auth/device")
        }
        return deviceCode
    }

    /// The grant of `deviceCode` and the result code derived from it; `invalid_grant` when there is none.
    private func polledGrant(_ deviceCode: String) async throws(DeviceTokenRefusal) -> (DeviceGrant, String) {
        guard case .available(let sealed) = try await peek(DeviceAuthorization.grantKey(deviceCode: deviceCode)),
            let plaintext = ResultSeal.open(sealed, code: deviceCode),
            let grant = Self.decode(DeviceGrant.self, from: plaintext),
            let resultCode = try? DeviceAuthorization.resultCode(deviceCode: deviceCode)
        else {
            throw DeviceTokenRefusal(
                "invalid_grant", "the device code is unknown, was already used, or expired long ago; ask for a new one")
        }
        return (grant, resultCode)
    }

    /// `store.peekResult`, a store failure answered `503 temporarily_unavailable`.
    private func peek(_ key: String) async throws(DeviceTokenRefusal) -> ResultLookup {
        do {
            return try await store.peekResult(code: key, now: now())
        } catch {
            throw DeviceTokenRefusal(
                "temporarily_unavailable", Self.storeFailure(error).message, status: 503)
        }
    }

    /// Redeems the result for the device, as `POST /__/auth/result` would (HTTP-API.md §3.3): the backend runs here,
    /// and a wrong verifier leaves the result deliverable.
    private func deliver(resultCode: String, deviceCode: String, grant: DeviceGrant, fields: [URLFormField]) async
        -> DeviceTokenAnswer
    {
        var redemption = [URLFormField(name: "code", value: resultCode)]
        if let verifier = fields.first(named: "verifier") {
            redemption.append(URLFormField(name: "verifier", value: verifier))
        }
        if let idToken = grant.idToken { redemption.append(URLFormField(name: "idToken", value: idToken)) }
        do {
            let answer = try await redeem(redemption)
            // The grant goes with the result: a later poll is told invalid_grant (delivered once).
            try? await store.deleteResult(code: DeviceAuthorization.grantKey(deviceCode: deviceCode))
            devicePacing.forget(resultCode)
            return .delivered(answer)
        } catch {
            switch error.code {
            case .invalidResultCode:
                return .refused(error: "invalid_grant", description: error.message, status: 400, interval: nil)
            case .redemptionInProgress:
                return .refused(
                    error: "authorization_pending", description: error.message, status: 400, interval: nil)
            default:
                return .refused(
                    error: error.code.rawValue, description: error.message, status: error.status, interval: nil)
            }
        }
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

    init(fields: [URLFormField], flow: SignInFlow) throws(APIError) {
        for name in ["providerId", "scopes", "customParameters", "authType", "idToken", "resultChallenge"]
        where fields.all(named: name).count > 1 {
            throw APIError(.invalidRequest, "\(name) is given more than once; send it once")
        }
        provider = try StartRequest.provider(fields.first(named: "providerId"), in: flow.providers)
        let offered = flow.settings.deviceAuthorization.providers
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
            fields.first(named: "resultChallenge"), required: flow.settings.requireResultChallenge)
        idToken = fields.first(named: "idToken").flatMap { $0.isEmpty ? nil : $0 }
        if authType.requiresIDToken, idToken == nil {
            throw APIError(
                .invalidRequest, "idToken is required for \(authType.rawValue): send the user's current ID token")
        }
        if let idToken, idToken.utf8.count > SignInFlow.maximumDeviceIDTokenBytes {
            throw APIError(.invalidRequest, "idToken is longer than \(SignInFlow.maximumDeviceIDTokenBytes) bytes")
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

/// A poll's refusal in RFC 6749 §5.2's terms: `error`, `error_description`, the status, and with `slow_down` the
/// code's new interval.
struct DeviceTokenRefusal: Error {
    var error: String
    var description: String
    var status: Int
    var interval: Int?

    init(_ error: String, _ description: String, status: Int = 400, interval: Int? = nil) {
        self.error = error
        self.description = description
        self.status = status
        self.interval = interval
    }
}
