import AuthHandlerCrypto
import AuthHandlerStore
import Foundation

/// Refresh, bearer tokens and sign-out (HTTP-API.md §3.10, docs/ACCOUNTS.md "Refresh tokens and sessions").
extension AccountsEngine {
    /// Why a refresh grant is refused: RFC 6749 §5.2's `invalid_grant` for every case, the reason for the log only.
    package struct RefreshRefusal: Error, Sendable, Equatable, CustomStringConvertible {
        package let reason: String
        /// Whether the refusal revoked the session (a reuse outside the windows, RFC 9700 §4.14.2).
        package let revokedSession: Bool
        package var description: String { reason }
    }

    /// What a refresh did, for the metrics.
    package enum RefreshKind: String, Sendable {
        case rotated
        /// A used token presented again within a window got its one successor again.
        case repeated
    }

    /// Exchanges `presented` for its successor and a fresh ID token. Each token has exactly one successor, fixed at
    /// its first use; a used token presented again within 10 s of that use, or while its successor has never been
    /// used and within `lostAnswerSeconds`, gets that same successor; any other reuse revokes the whole session.
    /// Re-presentation never extends the idle or absolute limits.
    /// A session started in cookie mode is refreshed only with `fromCookie` (the token came in the session cookie):
    /// its token presented in a body is refused, and nothing is rotated.
    package func refresh(_ presented: String, fromCookie: Bool = false) async throws(AccountsError)
        -> (Grant, RefreshKind)
    {
        do {
            return try await rotate(presented, fromCookie: fromCookie)
        } catch let refusal as RefreshRefusal {
            throw AccountsError(.invalidCredential, refusal.reason, details: ["revoked": .bool(refusal.revokedSession)])
        } catch let error as AccountsError {
            throw error
        } catch {
            throw AccountsError(.internalError, "the refresh failed")
        }
    }

    private func rotate(_ text: String, fromCookie: Bool) async throws -> (Grant, RefreshKind) {
        guard let token = RefreshToken(presented: text) else {
            throw RefreshRefusal(reason: "the refresh token is malformed", revokedSession: false)
        }
        let digest = try Self.crypto { () throws(CryptoError) in try token.digest() }
        guard let record = try await storedRefreshToken(digest) else {
            throw RefreshRefusal(reason: "the refresh token is unknown", revokedSession: false)
        }
        let (session, user) = try await liveSession(record.sessionID)
        if session.cookieBound, !fromCookie {
            throw RefreshRefusal(
                reason: "this session is kept in the browser's cookie; refresh it with session=cookie",
                revokedSession: false)
        }
        let at = now()
        let successor = try Self.crypto { () throws(CryptoError) in try RefreshToken.generate() }
        let sealed = try Self.crypto { () throws(CryptoError) in
            try RefreshTokenSuccessorSeal.seal(successor: successor, under: token)
        }
        let successorDigest = try Self.crypto { () throws(CryptoError) in try successor.digest() }
        let rotation = try await Self.storing { () throws(StoreError) in
            try await store.rotateRefreshToken(
                digest: digest, successorDigest: successorDigest, sealedSuccessor: sealed, at: at)
        }
        switch rotation {
        case .rotated:
            // The rotation set the session's last_refresh_at to `at` (AccountStore.rotateRefreshToken).
            let idToken = try await issueIDToken(for: user, session: session)
            let grant = Grant(
                user: user, idToken: idToken, refreshToken: successor, sessionID: session.id, isNewUser: false)
            return (grant, .rotated)
        case .alreadyRotated(let used, let successorUsed):
            let firstUse = used.firstUsedAt ?? used.issuedAt
            let elapsed = at.timeIntervalSince(firstUse)
            let repeatable =
                elapsed <= settings.concurrentUse || (!successorUsed && elapsed <= settings.lostAnswer)
            guard repeatable, let box = used.sealedSuccessor,
                let same = try? RefreshTokenSuccessorSeal.open(box, under: token)
            else {
                _ = try await Self.storing { () throws(StoreError) in
                    try await store.revokeSession(id: session.id, at: at)
                }
                throw RefreshRefusal(
                    reason: "a used refresh token was presented again; the session is revoked", revokedSession: true)
            }
            let idToken = try await issueIDToken(for: user, session: session)
            let grant = Grant(user: user, idToken: idToken, refreshToken: same, sessionID: session.id, isNewUser: false)
            return (grant, .repeated)
        }
    }

    /// Removes expired codes, pending credentials and counters, and the sessions that ended: revoked, idle longer than
    /// `idleDays`, or signed in longer ago than `absoluteDays` (with their refresh tokens). Answers how many records
    /// went.
    package func sweep() async throws(AccountsError) -> Int {
        let at = now()
        return try await Self.storing { () throws(StoreError) in
            try await store.sweep(
                now: at, idleSince: at.addingTimeInterval(-settings.refreshIdle),
                signedInBefore: at.addingTimeInterval(-settings.refreshAbsolute))
        }
    }

    /// Binds the session of `refreshToken` (just issued) to the browser's cookie: from now on it is refreshed only
    /// through the cookie (HTTP-API.md §3.10, "A session started in cookie mode is answered only in the cookie").
    package func bindToCookie(refreshToken text: String) async throws(AccountsError) {
        guard let token = RefreshToken(presented: text) else {
            throw AccountsError(.internalError, "the session to bind has a malformed token")
        }
        let digest = try Self.crypto { () throws(CryptoError) in try token.digest() }
        guard let record = try await storedRefreshToken(digest) else {
            throw AccountsError(.internalError, "the session to bind is unknown")
        }
        try await Self.storing { () throws(StoreError) in try await store.bindSessionToCookie(id: record.sessionID) }
    }

    /// The session and its user when the session may still be refreshed: not revoked, neither idle nor older than
    /// the limits, signed in no earlier than the user's `validSince`, for an enabled user.
    private func liveSession(_ id: String) async throws -> (AccountSession, AccountUser) {
        guard let session = try await storedSession(id), session.revokedAt == nil
        else { throw RefreshRefusal(reason: "the session has ended", revokedSession: false) }
        let at = now()
        if at.timeIntervalSince(session.lastRefreshAt) > settings.refreshIdle {
            throw RefreshRefusal(reason: "the session was idle too long", revokedSession: false)
        }
        if at.timeIntervalSince(session.signedInAt) > settings.refreshAbsolute {
            throw RefreshRefusal(reason: "the session is older than its absolute limit", revokedSession: false)
        }
        guard
            let user = try await Self.storing({ () throws(StoreError) in try await store.user(localID: session.localID)
            })
        else { throw RefreshRefusal(reason: "the user no longer exists", revokedSession: false) }
        guard !user.disabled else { throw RefreshRefusal(reason: "the user is disabled", revokedSession: false) }
        guard Self.isValid(authTime: session.authTime, since: user.validSince) else {
            throw RefreshRefusal(
                reason: "the session was revoked (a password change or sign-out everywhere)", revokedSession: false)
        }
        return (session, user)
    }

    /// Whether a session whose sign-in was at `authTime` (as stored, not the token's whole seconds) is still valid for
    /// a user whose sessions are valid since `validSince`.
    static func isValid(authTime: Date, since validSince: Date) -> Bool {
        authTime >= validSince
    }
}
