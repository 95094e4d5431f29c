import Foundation

/// One sign-in: the family of refresh tokens that descend from it, and the `sid` of its ID tokens (docs/ACCOUNTS.md
/// "Refresh tokens and sessions").
package struct AccountSession: Sendable, Equatable {
    /// The `sid`: random, made by the caller.
    package var id: String
    package var localID: LocalID
    /// How the session signed in: `password`, `google.com`, … (the ID token's `firebase.sign_in_provider`).
    package var signInProvider: String
    /// The original sign-in: the absolute limit counts from it, and no refresh moves it.
    package var signedInAt: Date
    /// The last time the user proved who they are (sign-in or re-authentication): the ID token's `auth_time`.
    package var authTime: Date
    /// The last refresh: the idle limit counts from it.
    package var lastRefreshAt: Date
    package var revokedAt: Date?
    /// Started for a browser in cookie mode: its refresh tokens are accepted only from the session cookie, never from
    /// a body (HTTP-API.md §3.10).
    package var cookieBound: Bool

    package init(
        id: String, localID: LocalID, signInProvider: String, signedInAt: Date, authTime: Date,
        lastRefreshAt: Date, revokedAt: Date? = nil, cookieBound: Bool = false
    ) {
        self.cookieBound = cookieBound
        self.id = id
        self.localID = localID
        self.signInProvider = signInProvider
        self.signedInAt = signedInAt
        self.authTime = authTime
        self.lastRefreshAt = lastRefreshAt
        self.revokedAt = revokedAt
    }
}
