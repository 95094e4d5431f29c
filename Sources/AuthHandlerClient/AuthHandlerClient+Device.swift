import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension AuthHandlerClient {
    /// What one poll of `POST /__/auth/device/token` learned.
    package enum DevicePoll: Sendable {
        /// Signed in: the result of HTTP-API.md §3.3, delivered once.
        case signedIn(SignInResult)
        /// Nobody has signed in yet (`authorization_pending`); poll again after the interval.
        case pending
        /// Polled too soon (`slow_down`): the interval is now `interval` seconds.
        case slowDown(interval: Int)
    }

    /// Starts a device sign-in (RFC 8628 §3.1, HTTP-API.md §3.9) for a program without a browser: the daemon answers a
    /// user code and a verification URL to show the user, who opens it on any device, enters the code, confirms and
    /// signs in with the provider. Then call ``completeDeviceSignIn(_:)``, which polls until the result is there.
    ///
    /// The daemon must have `deviceAuthorization` enabled (HTTP-API.md §2.12). The parameters are `begin`'s, without a
    /// redirect URL: the result comes back to this program.
    public func beginDeviceSignIn(
        providerId: String, scopes: [String] = [], customParameters: [String: String] = [:],
        authType: AuthType = .signIn, idToken: String? = nil
    ) async throws(AuthHandlerClientError) -> DeviceSignIn {
        try Self.checkArguments(providerId: providerId, scopes: scopes, authType: authType, idToken: idToken)
        var generator = SystemRandomNumberGenerator()
        let verifier = ResultChallenge.makeVerifier(using: &generator)
        var fields = [(name: "providerId", value: providerId), (name: "authType", value: authType.rawValue)]
        if !scopes.isEmpty { fields.append(("scopes", scopes.joined(separator: ","))) }
        if !customParameters.isEmpty { fields.append(("customParameters", try Self.jsonObject(customParameters))) }
        if authType.requiresIDToken, let idToken { fields.append(("idToken", idToken)) }
        fields.append(("resultChallenge", ResultChallenge.challenge(forVerifier: verifier)))
        let (status, body, retryAfter) = try await post("device", fields: fields)
        guard status == 200 else {
            throw Self.daemonError(status: status, body: body, retryAfter: retryAfter, path: "/__/auth/device")
        }
        do {
            let answer = try JSONDecoder().decode(DeviceAuthorizationAnswer.self, from: body)
            return DeviceSignIn(
                providerId: providerId, authType: authType, answer: answer, verifier: verifier, receivedAt: Date())
        } catch {
            throw .unreadableAnswer(
                status: status,
                message: "POST /__/auth/device answered 200 without device_code, user_code and "
                    + "verification_uri; check that baseURL reaches auth-handler")
        }
    }

    /// Polls for the result of `signIn` as RFC 8628 §3.4–3.5 say: it waits the interval before each poll, takes
    /// `slow_down`'s longer interval for every later poll, and keeps polling while nobody has signed in, until the
    /// codes expire (`deviceCodeExpired`). The user declining, or cancelling at the provider, is `userCancelled`.
    /// Cancelling the task stops the polling.
    public func completeDeviceSignIn(_ signIn: DeviceSignIn) async throws(AuthHandlerClientError) -> SignInResult {
        var signIn = signIn
        while true {
            guard Date() < signIn.expiresAt else {
                throw .deviceCodeExpired(
                    message: "nobody signed in with the code \(signIn.userCode) before it expired; start again")
            }
            do {
                try await Task.sleep(for: .seconds(signIn.interval))
            } catch {
                throw .networkError(message: "the device sign-in was cancelled while waiting to poll")
            }
            switch try await pollDeviceSignIn(signIn) {
            case .signedIn(let result): return result
            case .pending: continue
            case .slowDown(let interval): signIn.interval = interval
            }
        }
    }

    /// One poll of `POST /__/auth/device/token` (HTTP-API.md §3.9), without waiting.
    package func pollDeviceSignIn(_ signIn: DeviceSignIn) async throws(AuthHandlerClientError) -> DevicePoll {
        let fields = [
            (name: "grant_type", value: "urn:ietf:params:oauth:grant-type:device_code"),
            (name: "device_code", value: signIn.deviceCode), (name: "verifier", value: signIn.verifier),
        ]
        let (status, body, retryAfter) = try await post("device/token", fields: fields)
        if status == 200 {
            return .signedIn(try Self.result(status: status, body: body, retryAfter: retryAfter))
        }
        guard let answer = try? JSONDecoder().decode(DeviceTokenError.self, from: body) else {
            throw Self.daemonError(status: status, body: body, retryAfter: retryAfter, path: "/__/auth/device/token")
        }
        let message = answer.description ?? answer.error
        switch answer.error {
        case "authorization_pending": return .pending
        case "slow_down": return .slowDown(interval: answer.interval ?? signIn.interval + 5)
        case "access_denied": throw .userCancelled(message: message)
        case "expired_token": throw .deviceCodeExpired(message: message)
        case "invalid_grant": throw .invalidGrant(message: message)
        case "server_error": throw .providerError(message: message)
        case "temporarily_unavailable":
            throw .unavailable(retryAfter: retryAfter.flatMap { Int($0) }, message: message)
        case "invalid_request", "unsupported_grant_type": throw .invalidRequest(message: message)
        default:
            // The backend's refusals at delivery keep the daemon's own code (HTTP-API.md §3.9).
            throw AuthHandlerClientError(
                DaemonErrorObject(code: answer.error, message: message), retryAfter: retryAfter.flatMap { Int($0) })
        }
    }

    /// What `begin` refuses whatever the daemon's configuration.
    static func checkArguments(
        providerId: String, scopes: [String], authType: AuthType, idToken: String?
    ) throws(AuthHandlerClientError) {
        guard !providerId.isEmpty else {
            throw .invalidArgument(message: "providerId is empty: name a provider the daemon has configured")
        }
        if let scope = scopes.first(where: { $0.isEmpty || $0.contains(",") }) {
            throw .invalidArgument(
                message: "the scope \"\(scope)\" is empty or holds a comma; give each scope as its own element")
        }
        switch (authType.requiresIDToken, idToken?.isEmpty ?? true) {
        case (true, true):
            throw .invalidArgument(
                message: "\(authType.rawValue) needs idToken: pass the signed-in user's current ID token")
        case (false, false):
            throw .invalidArgument(
                message: "idToken is only for link and reauthenticate; leave it out of a sign-in")
        default:
            break
        }
    }

    /// The error of a non-`200` answer that is the daemon's JSON error object, or `unreadableAnswer`.
    static func daemonError(status: Int, body: Data, retryAfter: String?, path: String) -> AuthHandlerClientError {
        guard let error = try? JSONDecoder().decode(DaemonErrorObject.Answer.self, from: body).error else {
            return .unreadableAnswer(
                status: status,
                message: "POST \(path) answered HTTP \(status) without the daemon's JSON error; check that baseURL "
                    + "reaches auth-handler and that its deviceAuthorization is enabled")
        }
        return AuthHandlerClientError(error, retryAfter: retryAfter.flatMap { Int($0) })
    }
}
