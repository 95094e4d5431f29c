import AuthHandlerStore
import Foundation

/// Token introspection for APIs that must honour revocation before `exp` (RFC 7662; docs/ACCOUNTS.md "For API
/// developers").
extension AccountsEngine {
    /// What `POST /__/auth/introspect` says of an active token.
    package struct Introspection: Sendable, Equatable {
        package var localID: LocalID
        package var sessionID: String
        package var issuedAt: Date
        package var expiresAt: Date
        package var authTime: Date
        /// The user's `validSince`: an ID token whose `auth_time` is before it is no longer accepted.
        package var validSince: Date
    }

    /// The token's facts when it is one of this daemon's ID tokens, unexpired, whose session is live, whose
    /// `auth_time` is not before the user's `validSince`, for an enabled user: exactly what a bearer token must be
    /// (``authenticate(_:recency:)``). Nil (`active: false`) otherwise, without saying why (RFC 7662 §2.2). Only a
    /// store that cannot answer throws (`503`), so that an outage is not mistaken for a revocation.
    package func introspect(_ token: String) async throws(AccountsError) -> Introspection? {
        let caller: Caller
        do {
            caller = try await authenticate(token)
        } catch {
            if error.code == .unavailable || error.code == .internalError { throw error }
            return nil
        }
        return Introspection(
            localID: caller.user.localID, sessionID: caller.session.id, issuedAt: caller.token.issuedAt,
            expiresAt: caller.token.expiresAt, authTime: caller.token.authTime, validSince: caller.user.validSince)
    }
}
