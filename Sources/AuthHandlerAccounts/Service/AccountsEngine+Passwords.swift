import AuthHandlerCrypto
import AuthHandlerStore
import Foundation

/// E-mail and password sign-up and sign-in (HTTP-API.md §3.10, docs/ACCOUNTS.md "Passwords").
extension AccountsEngine {
    /// What a password sign-in answers beside the grant: the device cookie to set (OWASP's device-cookie defence).
    package struct PasswordSignIn: Sendable {
        package var grant: Grant
        package var deviceCookie: String
    }

    /// Creates a user with `email` and `password`, signed in. `409 email-already-in-use` when the address has an
    /// account (as Firebase answers); the hash is made first, so the answer costs the same either way and counts
    /// against the client's hashing budget.
    package func signUp(email text: String, password: String, displayName: String?, client: ClientKey)
        async throws(AccountsError) -> Grant
    {
        let user = try await createPasswordUser(
            email: text, password: password, displayName: displayName, client: client)
        return try await startSession(for: user, provider: "password", isNewUser: true)
    }

    /// Creates a user with `email` and `password` and no session: ``signUp(email:password:displayName:client:)``
    /// without signing in, for the picker, whose result the app redeems (HTTP-API.md §3.6).
    package func createPasswordUser(email text: String, password: String, displayName: String?, client: ClientKey)
        async throws(AccountsError) -> AccountUser
    {
        try requirePasswords()
        let email = try Self.email(text)
        let normalized: NormalizedPassword
        do {
            normalized = try policy.check(password)
        } catch {
            throw AccountsError(
                .weakPassword, error.description, details: ["reason": .string(error.reason)])
        }
        let hash = try await hashing { () async throws(CryptoError) in try await hasher.hash(normalized, client: client)
        }
        let at = now()
        let localID = try Self.crypto { () throws(CryptoError) in try LocalID.generate() }
        let user = AccountUser(
            localID: localID, email: email.given, normalizedEmail: email.normalized, displayName: displayName,
            passwordHash: hash, passwordVersion: 1, createdAt: at, validSince: at)
        do {
            try await store.insertUser(user, identity: nil)
        } catch {
            if case .constraint("email") = error.kind {
                throw AccountsError(
                    .emailAlreadyInUse, "an account with this e-mail address exists; sign in instead")
            }
            throw Self.storeFailure(error)
        }
        return user
    }

    /// Signs in with `email` and `password`. An unknown e-mail and a wrong password are the same
    /// `400 invalid-credential` in the same time (a dummy hash); `403 user-disabled` only after a correct password.
    package func signIn(email text: String, password: String, client: ClientKey, deviceCookie: String?)
        async throws(AccountsError) -> PasswordSignIn
    {
        let checked = try await checkPassword(
            email: text, password: password, client: client, deviceCookie: deviceCookie)
        let grant = try await startSession(for: checked.user, provider: "password", isNewUser: false)
        return PasswordSignIn(grant: grant, deviceCookie: checked.deviceCookie)
    }

    /// The user whose `email` and `password` these are, and the device cookie to set, with no session started:
    /// ``signIn(email:password:client:deviceCookie:)``'s checks (the throttle, the same refusal for an unknown address
    /// and a wrong password, `user-disabled` after a correct one), for the picker (HTTP-API.md §3.6).
    package func checkPassword(email text: String, password: String, client: ClientKey, deviceCookie: String?)
        async throws(AccountsError) -> (user: AccountUser, deviceCookie: String)
    {
        try requirePasswords()
        let email = try Self.email(text)
        let normalized: NormalizedPassword
        do {
            normalized = try NormalizedPassword(password)
        } catch {
            throw AccountsError(.invalidCredential, "the e-mail address or the password is wrong")
        }
        try await admit(
            email: email.normalized, client: client, deviceCookie: deviceCookie,
            refusal: "too many failed sign-ins for this address; wait and try again")
        let user = try await Self.storing { () throws(StoreError) in
            try await store.user(normalizedEmail: email.normalized)
        }
        let check = try await hashing { () async throws(CryptoError) in
            try await hasher.verify(normalized, typed: Array(password.utf8), of: user, client: client)
        }
        guard case .match(let rehashed) = check, let user else {
            await throttle.recordFailure(email: email.normalized, client: client)
            throw AccountsError(.invalidCredential, "the e-mail address or the password is wrong")
        }
        await throttle.recordSuccess(email: email.normalized, client: client)
        guard !user.disabled else { throw AccountsError(.userDisabled, "this account is disabled") }
        let upgraded = try await storeRehash(rehashed, of: user)
        let cookie = try Self.crypto { () throws(CryptoError) in try deviceCookies.issue(email: email.normalized) }
        return (upgraded, cookie)
    }

    /// The throttle's admission of a password check for `email` from `client`: `429 too-many-requests` saying
    /// `refusal` with the wait, or `503 unavailable` when the shared counters' database did not answer in time.
    func admit(email: String, client: ClientKey, deviceCookie: String?, refusal: String) async throws(AccountsError) {
        switch await throttle.check(email: email, client: client, deviceCookie: deviceCookie) {
        case .allowed: return
        case .throttled(let seconds): throw AccountsError(.tooManyRequests, refusal, retryAfterSeconds: seconds)
        case .unavailable: throw Self.storeFailure(StoreError(.unavailable, detail: "the sign-in throttle's counter"))
        }
    }

    /// A session for the user `localID` signed in by `provider` at `authTime`: the redemption of a picker result
    /// (HTTP-API.md §3.3, §3.6). The user is read again, so one deleted or disabled since is refused.
    package func startSession(localID text: String, provider: String, authTime: Date, isNewUser: Bool)
        async throws(AccountsError) -> Grant
    {
        guard let localID = LocalID(text), let user = try await storedUser(localID) else {
            throw AccountsError(.invalidCredential, "the account of this sign-in no longer exists; sign in again")
        }
        guard !user.disabled else { throw AccountsError(.userDisabled, "this account is disabled") }
        return try await startSession(for: user, provider: provider, isNewUser: isNewUser, authTime: authTime)
    }

    /// `user` with the new hash of a successful check: an argon2id hash made with stronger parameters, or the upgrade
    /// of an imported hash (docs/ACCOUNTS.md "Imported users"), written at once in one transaction and only over the
    /// hash that was checked, so that a password changed meanwhile is not overwritten.
    func storeRehash(_ rehashed: String?, of user: AccountUser) async throws(AccountsError) -> AccountUser {
        guard let rehashed else { return user }
        let stored = try await Self.storing { () throws(StoreError) in
            try await store.modifyUser(localID: user.localID) { stored in
                guard stored.passwordHash == user.passwordHash, stored.legacyPasswordHash == user.legacyPasswordHash
                else { return }
                stored.setPasswordHash(rehashed)
            }
        }
        guard let stored else { throw AccountsError(.userNotFound, "the account was deleted") }
        return stored
    }

    /// `operation-not-allowed` unless `password.enabled`.
    package func requirePasswords() throws(AccountsError) {
        guard settings.passwordsEnabled else {
            throw AccountsError(.operationNotAllowed, "e-mail and password sign-in is turned off on this server")
        }
    }

    /// `text` as an address, or `400 invalid-email` with the reason.
    package static func email(_ text: String) throws(AccountsError) -> EmailAddress {
        do {
            return try EmailAddress(parsing: text)
        } catch {
            throw AccountsError(.invalidEmail, "the e-mail address is not valid: \(error)")
        }
    }

    /// Runs a hashing call: its budget refusal `429`, its full queue `503`, both with `Retry-After`.
    func hashing<Value: Sendable>(_ call: () async throws(CryptoError) -> HashingOutcome<Value>)
        async throws(AccountsError) -> Value
    {
        let outcome: HashingOutcome<Value>
        do {
            outcome = try await call()
        } catch {
            throw AccountsError(.internalError, "password hashing failed: \(error)")
        }
        switch outcome {
        case .done(let value): return value
        case .limited(let seconds):
            throw AccountsError(
                .tooManyRequests, "too many password attempts from this address; wait and try again",
                retryAfterSeconds: seconds)
        case .busy(let seconds):
            throw AccountsError(
                .unavailable, "the server is busy checking passwords; try again shortly", retryAfterSeconds: seconds)
        }
    }
}
