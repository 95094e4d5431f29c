import AuthHandlerCrypto
import AuthHandlerStore
import AuthHandlerSystem
import Foundation

/// The accounts backend's operations (docs/ACCOUNTS.md): sign-up, sign-in, sessions, refresh, sign-out and a
/// provider's sign-in, on one ``AccountStore``. It knows no HTTP: the service parses requests into these calls and
/// renders their answers and ``AccountsError``s.
package final class AccountsEngine: Sendable {
    package let store: any AccountStore
    package let settings: AccountsSettings
    /// The keys: the current one signs, all are published.
    package let keys: SigningKeyRing
    package let signer: IDTokenSigner
    package let verifier: IDTokenVerifier
    package let hasher: PasswordHasher
    package let policy: PasswordPolicy
    package let throttle: any SignInThrottling
    package let deviceCookies: DeviceCookie
    /// Seals the pending credentials of `account-exists-with-different-credential`.
    let pendingCredentialKey: [UInt8]
    let now: WallClock

    package init(
        store: any AccountStore, settings: AccountsSettings, keys: SigningKeyRing, hasher: PasswordHasher,
        policy: PasswordPolicy, throttle: any SignInThrottling, deviceCookies: DeviceCookie,
        pendingCredentialKey: [UInt8], now: @escaping WallClock = systemWallClock
    ) {
        self.store = store
        self.settings = settings
        self.keys = keys
        signer = IDTokenSigner(ring: keys, settings: settings.idToken)
        verifier = IDTokenVerifier(ring: keys, settings: settings.idToken)
        self.hasher = hasher
        self.policy = policy
        self.throttle = throttle
        self.deviceCookies = deviceCookies
        self.pendingCredentialKey = pendingCredentialKey
        self.now = now
    }

    /// A signed-in session's answer: the user, a fresh ID token and the session's refresh token.
    package struct Grant: Sendable {
        package var user: AccountUser
        package var idToken: IssuedIDToken
        package var refreshToken: RefreshToken
        package var sessionID: String
        package var isNewUser: Bool
        /// Extra members of the answer (`previousMethodsRemoved`).
        package var notes: [String: Bool] = [:]
    }

    /// Starts a session for `user` signed in by `provider` (`password`, `google.com`, …): a new refresh-token
    /// family, and an ID token whose `auth_time` is `authTime` (now when nil).
    func startSession(for user: AccountUser, provider: String, isNewUser: Bool, authTime: Date? = nil)
        async throws(AccountsError) -> Grant
    {
        let at = now()
        let refreshToken = try Self.crypto { () throws(CryptoError) in try RefreshToken.generate() }
        let sessionID = try Self.crypto { () throws(CryptoError) in try SecureRandom.base64URLString(byteCount: 21) }
        let session = AccountSession(
            id: sessionID, localID: user.localID, signInProvider: provider, signedInAt: at, authTime: authTime ?? at,
            lastRefreshAt: at)
        let digest = try Self.crypto { () throws(CryptoError) in try refreshToken.digest() }
        try await Self.storing { () throws(StoreError) in
            try await store.insertSession(
                session, firstToken: RefreshTokenRecord(digest: digest, sessionID: sessionID, issuedAt: at))
        }
        var signedIn = user
        signedIn.lastSignInAt = at
        try await Self.storing { () throws(StoreError) in try await store.updateUser(signedIn) }
        let idToken = try await issueIDToken(for: signedIn, session: session)
        return Grant(
            user: signedIn, idToken: idToken, refreshToken: refreshToken, sessionID: sessionID, isNewUser: isNewUser)
    }

    /// An ID token for `user` in `session`, its identities and custom claims read now.
    func issueIDToken(for user: AccountUser, session: AccountSession) async throws(AccountsError) -> IssuedIDToken {
        let identities = try await Self.storing { () throws(StoreError) in try await store.identities(of: user.localID)
        }
        let claims: CustomClaims
        do {
            claims =
                try user.customClaims.map { text throws(CustomClaims.Refusal) in
                    try CustomClaims(parsing: Array(text.utf8))
                } ?? .empty
        } catch {
            throw AccountsError(.internalError, "the user's stored custom claims are not valid: \(error)")
        }
        let subject = IDTokenSubject(
            localID: user.localID, sessionID: session.id, authTime: session.authTime,
            signInProvider: session.signInProvider, email: user.email, emailVerified: user.emailVerified,
            displayName: user.displayName, photoURL: user.photoURL,
            identities: identities.map { .init(providerID: $0.providerID, providerUserID: $0.providerUserID) },
            customClaims: claims)
        return try Self.crypto { () throws(CryptoError) in try signer.sign(subject, now: now()) }
    }

    // MARK: Reads

    func storedUser(_ localID: LocalID) async throws(AccountsError) -> AccountUser? {
        try await Self.storing { () throws(StoreError) in try await store.user(localID: localID) }
    }

    func storedUser(normalizedEmail: String) async throws(AccountsError) -> AccountUser? {
        try await Self.storing { () throws(StoreError) in try await store.user(normalizedEmail: normalizedEmail) }
    }

    func storedSession(_ id: String) async throws(AccountsError) -> AccountSession? {
        try await Self.storing { () throws(StoreError) in try await store.session(id: id) }
    }

    func storedRefreshToken(_ digest: [UInt8]) async throws(AccountsError) -> RefreshTokenRecord? {
        try await Self.storing { () throws(StoreError) in try await store.refreshToken(digest: digest) }
    }

    // MARK: Errors

    /// Runs a store call, its failure an ``AccountsError``: `unavailable` (503, retry) or `internal-error`.
    static func storing<Value: Sendable>(_ call: () async throws(StoreError) -> Value) async throws(AccountsError)
        -> Value
    {
        do {
            return try await call()
        } catch {
            throw storeFailure(error)
        }
    }

    static func storeFailure(_ error: StoreError) -> AccountsError {
        if case .unavailable = error.kind {
            return AccountsError(.unavailable, "the accounts database is unavailable; try again", retryAfterSeconds: 1)
        }
        return AccountsError(.internalError, "the accounts database refused the operation")
    }

    /// Runs a crypto call (random bytes, a signature), its failure an `internal-error`.
    static func crypto<Value>(_ call: () throws(CryptoError) -> Value) throws(AccountsError) -> Value {
        do {
            return try call()
        } catch {
            throw AccountsError(.internalError, "a cryptographic operation failed: \(error)")
        }
    }
}
