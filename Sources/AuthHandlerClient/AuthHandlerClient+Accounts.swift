import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The accounts backend's calls (HTTP-API.md §3.10, docs/CLIENTS.md "Accounts in Swift"), FirebaseAuth's in Swift
/// concurrency style. A native app gets its refresh token in the answer body and keeps it in the client's
/// ``SessionStore``; it never asks for cookie mode.
extension AuthHandlerClient {
    // MARK: Signing in and out

    /// Creates a password account and signs in to it (`POST /__/auth/password/sign-up`). Its e-mail is not verified
    /// yet: see ``sendEmailVerification()``.
    @discardableResult
    public func signUp(email: String, password: String, displayName: String? = nil) async throws(AuthHandlerClientError)
        -> AccountUser
    {
        var body: [String: JSON] = ["email": .string(email), "password": .string(password)]
        if let displayName { body["displayName"] = .string(displayName) }
        return try await adoptSignedIn(try await accountCall("POST", "password/sign-up", body))
    }

    /// Signs in with a password (`POST /__/auth/password/sign-in`). A wrong password and an unknown e-mail are the
    /// same `invalid-credential`.
    @discardableResult
    public func signIn(email: String, password: String) async throws(AuthHandlerClientError) -> AccountUser {
        try await adoptSignedIn(
            try await accountCall("POST", "password/sign-in", ["email": .string(email), "password": .string(password)]))
    }

    /// Signs this client in with the accounts backend's answer in a redeemed provider sign-in (`result.signIn`,
    /// HTTP-API.md §3.3), so a provider sign-in through ``complete(_:callbackURL:)`` signs the client in too.
    /// `invalidArgument` when the result holds no refresh token (another backend, or cookie mode).
    @discardableResult
    public func adopt(signIn result: SignInResult) async throws(AuthHandlerClientError) -> AccountUser {
        guard let answer = result.signIn, answer["refreshToken"]?.stringValue != nil else {
            throw .invalidArgument(
                message: "the result's signIn holds no refreshToken: the daemon's backend is not accounts")
        }
        return try await adoptSignedIn(answer)
    }

    /// The session stored by the ``SessionStore`` when the app last ran, made current; nil when there is none. Call
    /// it once at launch. The user is the stored ID token's; ``idToken(forceRefresh:)`` refreshes it when due.
    @discardableResult
    public func restoreSession() async throws(AuthHandlerClientError) -> AccountUser? {
        try await account.restore()
    }

    /// The signed-in user (the current ID token's claims, not verified), or nil when signed out.
    public var currentUser: AccountUser? {
        get async { await account.user }
    }

    /// The user, now and after each sign-in and sign-out: FirebaseAuth's `addStateDidChangeListener`. The stream
    /// yields the current user (nil when signed out) first.
    public var authStateChanges: AsyncStream<AccountUser?> {
        let (stream, continuation) = AsyncStream.makeStream(of: AccountUser?.self)
        let account = account
        Task { await account.listen(continuation) }
        return stream
    }

    /// A current ID token for the app's server, refreshed at `POST /__/auth/token` when it expires within 60 s or
    /// when `forceRefresh` (to see changed claims). Concurrent callers share one refresh. A refused refresh token
    /// (`invalid_grant`: revoked, expired, reused) signs out and clears the stored session: `signedOut`.
    public func idToken(forceRefresh: Bool = false) async throws(AuthHandlerClientError) -> String {
        try await account.idToken(forceRefresh: forceRefresh) { refreshToken async throws(AuthHandlerClientError) in
            try await refreshGrant(refreshToken)
        }
    }

    /// Signs out (`POST /__/auth/sign-out`). `.local` ends this session and signs this client out even when the
    /// daemon cannot be reached (the error is thrown after); `.global` ends every session and does the same;
    /// `.others` keeps this one. `.others` and `.global` need a recent sign-in.
    public func signOut(scope: SignOutScope = .local) async throws(AuthHandlerClientError) {
        guard let session = await account.session else { return }
        var failure: AuthHandlerClientError?
        do {
            var body: [String: JSON] = ["scope": .string(scope.rawValue)]
            var bearer: String?
            if scope == .local {
                body["refreshToken"] = .string(session.refreshToken)
            } else {
                bearer = try await idToken()
            }
            _ = try await accountCall("POST", "sign-out", body, bearer: bearer)
        } catch {
            failure = error
        }
        if scope != .others { try await account.change(to: nil) }
        if let failure { throw failure }
    }

    // MARK: The signed-in user's account

    /// Sends a password-reset link to `email` (`POST /__/auth/password/reset`). It succeeds for any well-formed
    /// address, with an account or without.
    public func sendPasswordReset(email: String) async throws(AuthHandlerClientError) {
        _ = try await accountCall("POST", "password/reset", ["email": .string(email)])
    }

    /// Sends a verification link to the user's address (`POST /__/auth/user/verify-email`); false when none was
    /// sent (already verified, no address, or over its mail limit).
    @discardableResult
    public func sendEmailVerification() async throws(AuthHandlerClientError) -> Bool {
        try await accountCall("POST", "user/verify-email", [:], bearer: try await idToken())["sent"]?.boolValue
            ?? false
    }

    /// Sends a link to `email` that makes it the account's address once followed (`POST /__/auth/user/email`);
    /// false when that address is over its mail limit. Needs a recent sign-in and a verified account.
    @discardableResult
    public func updateEmail(_ email: String) async throws(AuthHandlerClientError) -> Bool {
        try await accountCall("POST", "user/email", ["email": .string(email)], bearer: try await idToken())["sent"]?
            .boolValue ?? false
    }

    /// Sets a new password (`POST /__/auth/user/password`). Every other session of the user ends; this client gets
    /// a new one. Needs a recent sign-in.
    public func updatePassword(_ password: String) async throws(AuthHandlerClientError) {
        let answer = try await accountCall(
            "POST", "user/password", ["password": .string(password)], bearer: try await idToken())
        try await adoptSignedIn(answer)
    }

    /// Changes the profile (`PATCH /__/auth/user`); nil leaves a field, `""` clears it; `photoURL` must be https.
    /// The answer is the account; the ID token carries the change after ``idToken(forceRefresh:)`` with `true`.
    @discardableResult
    public func updateProfile(displayName: String? = nil, photoURL: URL? = nil) async throws(AuthHandlerClientError)
        -> JSON
    {
        var body: [String: JSON] = [:]
        if let displayName { body["displayName"] = .string(displayName) }
        if let photoURL { body["photoURL"] = .string(photoURL.absoluteString) }
        return try await accountCall("PATCH", "user", body, bearer: try await idToken())
    }

    /// Deletes the account and signs out (`DELETE /__/auth/user`). Needs a recent sign-in.
    public func deleteUser() async throws(AuthHandlerClientError) {
        _ = try await accountCall("DELETE", "user", nil, bearer: try await idToken())
        try await account.change(to: nil)
    }

    /// Links the identity of an `account-exists-with-different-credential` answer to the signed-in user
    /// (`POST /__/auth/user/link`): its `pendingCredential` and the `verifier` of the redemption that produced it.
    /// The answer is the account. Needs a sign-in after the pending credential was issued.
    @discardableResult
    public func link(pendingCredential: String, verifier: String) async throws(AuthHandlerClientError) -> JSON {
        try await accountCall(
            "POST", "user/link", ["pendingCredential": .string(pendingCredential), "verifier": .string(verifier)],
            bearer: try await idToken())
    }

    /// ``link(pendingCredential:verifier:)`` with the verifier of `request`: the sign-in whose `complete` threw
    /// `accountExistsWithDifferentCredential` with this `pendingCredential` (the verifier itself never leaves the
    /// request, docs/CLIENTS.md "From Firebase").
    @discardableResult
    public func link(pendingCredential: String, from request: SignInRequest) async throws(AuthHandlerClientError)
        -> JSON
    {
        try await link(pendingCredential: pendingCredential, verifier: request.verifier)
    }

    /// Removes a provider's identity from the account (`POST /__/auth/user/unlink`); the answer is the account.
    @discardableResult
    public func unlink(providerId: String) async throws(AuthHandlerClientError) -> JSON {
        try await accountCall("POST", "user/unlink", ["providerId": .string(providerId)], bearer: try await idToken())
    }

    /// Makes the sign-in recent with the password (`POST /__/auth/password/reauth`), for the calls that need one.
    public func reauthenticate(password: String) async throws(AuthHandlerClientError) {
        let answer = try await accountCall(
            "POST", "password/reauth", ["password": .string(password)], bearer: try await idToken())
        guard let idToken = answer["idToken"]?.stringValue, let session = await account.session else {
            throw .unreadableAnswer(status: 200, message: "POST /__/auth/password/reauth answered no idToken")
        }
        try await account.change(to: AccountSession(refreshToken: session.refreshToken, idToken: idToken))
    }

    // MARK: Transport

    /// Makes a signed-in answer (HTTP-API.md §3.10) the current session.
    @discardableResult
    func adoptSignedIn(_ answer: JSON) async throws(AuthHandlerClientError) -> AccountUser {
        guard let idToken = answer["idToken"]?.stringValue, let refreshToken = answer["refreshToken"]?.stringValue,
            let user = AccountUser(idToken: idToken)
        else {
            throw .unreadableAnswer(
                status: 200, message: "the signed-in answer has no readable idToken and refreshToken")
        }
        try await account.change(to: AccountSession(refreshToken: refreshToken, idToken: idToken))
        return user
    }

    /// `POST /__/auth/token` with the refresh token (RFC 6749 §6); its errors are RFC 6749 §5.2's.
    func refreshGrant(_ refreshToken: String) async throws(AuthHandlerClientError) -> AccountState.Grant {
        let (status, body, retryAfter) = try await post(
            "token", fields: [("grant_type", "refresh_token"), ("refresh_token", refreshToken)])
        let answer = try? JSONDecoder().decode(JSON.self, from: body)
        if status == 200, let idToken = answer?["id_token"]?.stringValue,
            let next = answer?["refresh_token"]?.stringValue
        {
            return AccountState.Grant(idToken: idToken, refreshToken: next)
        }
        let message = answer?["error_description"]?.stringValue ?? "the refresh was refused"
        switch answer?["error"]?.stringValue {
        case "invalid_grant"?: throw .invalidGrant(message: message)
        case "invalid_request"?, "unsupported_grant_type"?: throw .invalidRequest(message: message)
        default:
            if status == 503 { throw .unavailable(retryAfter: retryAfter.flatMap { Int($0) }, message: message) }
            throw .unreadableAnswer(
                status: status, message: "POST /__/auth/token answered HTTP \(status) without RFC 6749's JSON")
        }
    }

    /// A JSON request to `/__/auth/` + `name` (HTTP-API.md §3.10), with `Authorization: Bearer` when given; the
    /// answer's JSON, or the daemon's error.
    func accountCall(_ method: String, _ name: String, _ body: [String: JSON]?, bearer: String? = nil)
        async throws(AuthHandlerClientError) -> JSON
    {
        var request = URLRequest(url: try endpoint(name, query: nil))
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let bearer { request.setValue("Bearer " + bearer, forHTTPHeaderField: "Authorization") }
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            do {
                request.httpBody = try JSONEncoder().encode(JSON.object(body))
            } catch {
                throw .invalidArgument(message: "the body of \(method) /__/auth/\(name) cannot be written as JSON")
            }
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw .networkError(message: "\(method) /__/auth/\(name) failed: \(error.localizedDescription)")
        }
        guard let answer = response as? HTTPURLResponse else {
            throw .unreadableAnswer(status: 0, message: "the answer to \(method) /__/auth/\(name) is not HTTP")
        }
        guard answer.statusCode == 200 else {
            guard let error = try? JSONDecoder().decode(DaemonErrorObject.Answer.self, from: data).error else {
                throw .unreadableAnswer(
                    status: answer.statusCode,
                    message: "\(method) /__/auth/\(name) answered HTTP \(answer.statusCode) without the daemon's "
                        + "JSON error; check that baseURL reaches auth-handler and that its backend is accounts")
            }
            let retryAfter = answer.value(forHTTPHeaderField: "Retry-After").flatMap { Int($0) }
            throw AuthHandlerClientError(error, retryAfter: retryAfter)
        }
        guard let json = try? JSONDecoder().decode(JSON.self, from: data) else {
            throw .unreadableAnswer(status: 200, message: "\(method) /__/auth/\(name) answered no JSON")
        }
        return json
    }
}
