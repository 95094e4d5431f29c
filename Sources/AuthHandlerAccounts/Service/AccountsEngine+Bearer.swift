import AuthHandlerCrypto
import AuthHandlerStore
import Foundation

/// `Authorization: Bearer` (issue 25 §2 "Bearer tokens"), sign-out and the user's own record.
extension AccountsEngine {
    /// A caller a bearer ID token identified: the user, its live session, and the token's claims.
    package struct Caller: Sendable {
        package var user: AccountUser
        package var session: AccountSession
        package var token: VerifiedIDToken
    }

    /// How recent a sign-in an operation needs.
    package enum Recency: Sendable {
        /// Any live session.
        case any
        /// `auth_time` within `recentLogin` (5 minutes): linking, unlinking, changing the e-mail or password,
        /// deleting the user, signing out others or everywhere.
        case recent
    }

    /// The caller of `token`: only this daemon's ES256 ID tokens whose `sid` is live, whose `auth_time` is not
    /// before the user's `validSince`, for an enabled user; `401 invalid-id-token` otherwise, `403 user-disabled`
    /// for a disabled user, `401 requires-recent-login` when `recency` asks for a sign-in the token is older than.
    package func authenticate(_ token: String, recency: Recency = .any) async throws(AccountsError) -> Caller {
        let verified: VerifiedIDToken
        do {
            verified = try verifier.verify(token, now: now())
        } catch {
            throw AccountsError(.invalidIDToken, "\(error); sign in again")
        }
        guard
            let session = try await Self.storing({ () throws(StoreError) in
                try await store.session(id: verified.sessionID)
            }), session.revokedAt == nil, session.localID == verified.localID
        else { throw AccountsError(.invalidIDToken, "the bearer token's session has ended; sign in again") }
        guard
            let user = try await Self.storing({ () throws(StoreError) in
                try await store.user(localID: verified.localID)
            })
        else { throw AccountsError(.invalidIDToken, "the bearer token's user no longer exists") }
        guard !user.disabled else { throw AccountsError(.userDisabled, "this account is disabled") }
        guard Self.isValid(authTime: session.authTime, since: user.validSince) else {
            throw AccountsError(.invalidIDToken, "the bearer token's session was revoked; sign in again")
        }
        if case .recent = recency, now().timeIntervalSince(session.authTime) > settings.recentLogin {
            throw AccountsError(
                .requiresRecentLogin,
                "this needs a sign-in within the last \(Int(settings.recentLogin / 60)) minutes; sign in again "
                    + "(or reauthenticate) and retry")
        }
        return Caller(user: user, session: session, token: verified)
    }

    /// Which sessions a sign-out ends.
    package enum SignOutScope: String, Sendable, CaseIterable {
        /// The caller's session.
        case local
        /// Every session of the user but the caller's.
        case others
        /// Every session of the user, and every ID token issued so far stops being accepted here.
        case global
    }

    /// Ends sessions of the user of a session. `others` and `global` need a recent sign-in when asked with a bearer
    /// token (a refresh token alone is not proof of a recent sign-in, so with one they are refused).
    package func signOut(session: AccountSession, user: AccountUser, scope: SignOutScope) async throws(AccountsError) {
        let at = now()
        switch scope {
        case .local:
            _ = try await Self.storing { () throws(StoreError) in try await store.revokeSession(id: session.id, at: at)
            }
        case .others:
            _ = try await Self.storing { () throws(StoreError) in
                try await store.revokeSessions(of: user.localID, except: session.id, at: at)
            }
        case .global:
            _ = try await Self.storing { () throws(StoreError) in
                try await store.revokeSessions(of: user.localID, except: nil, at: at)
            }
            var revoked = user
            revoked.validSince = at
            try await Self.storing { () throws(StoreError) in try await store.updateUser(revoked) }
        }
    }

    /// The session and user a refresh token belongs to, for a sign-out by refresh token; nil when the token is not
    /// one of a live session (signing out an ended session succeeds quietly).
    package func sessionOf(refreshToken text: String) async throws(AccountsError) -> (AccountSession, AccountUser)? {
        guard let token = RefreshToken(presented: text) else { return nil }
        let digest = try Self.crypto { () throws(CryptoError) in try token.digest() }
        guard let record = try await storedRefreshToken(digest),
            let session = try await storedSession(record.sessionID), session.revokedAt == nil,
            let user = try await storedUser(session.localID)
        else { return nil }
        return (session, user)
    }

    /// The user's identities, for `GET /__/auth/user`.
    package func identities(of user: AccountUser) async throws(AccountsError) -> [AccountIdentity] {
        try await Self.storing { () throws(StoreError) in try await store.identities(of: user.localID) }
    }

    /// Sets the caller's `displayName` and `photoURL` (a member absent is kept; an empty string clears it).
    package func updateProfile(_ caller: Caller, displayName: String?, photoURL: String?) async throws(AccountsError)
        -> AccountUser
    {
        var user = caller.user
        if let displayName { user.displayName = displayName.isEmpty ? nil : displayName }
        if let photoURL { user.photoURL = photoURL.isEmpty ? nil : photoURL }
        try await Self.storing { () throws(StoreError) in try await store.updateUser(user) }
        return user
    }

    /// Deletes the caller's user with its identities and sessions (a recent sign-in is checked by the caller).
    package func deleteUser(_ caller: Caller) async throws(AccountsError) {
        _ = try await Self.storing { () throws(StoreError) in try await store.deleteUser(localID: caller.user.localID) }
    }
}

extension AccountsEngine {
    /// Removes the caller's identity of `providerID` (or, for `password`, its password): `400 last-sign-in-method`
    /// when nothing would be left to sign in with, `400 invalid-request` when the user has no such method.
    package func unlink(_ caller: Caller, providerID: String) async throws(AccountsError) -> AccountUser {
        let identities = try await identities(of: caller.user)
        let hasPassword = caller.user.hasPassword
        let methods = identities.count + (hasPassword ? 1 : 0)
        let has = providerID == "password" ? hasPassword : identities.contains { $0.providerID == providerID }
        guard has else { throw AccountsError(.invalidRequest, "the user has no \(providerID) sign-in to remove") }
        guard methods > 1 else {
            throw AccountsError(
                .lastSignInMethod, "\(providerID) is the account's only way to sign in; add another first")
        }
        if providerID == "password" {
            var user = caller.user
            user.setPasswordHash(nil)
            user.passwordVersion += 1
            try await Self.storing { () throws(StoreError) in try await store.updateUser(user) }
            return user
        }
        _ = try await Self.storing { () throws(StoreError) in
            try await store.unlinkIdentity(localID: caller.user.localID, providerID: providerID)
        }
        return caller.user
    }
}
