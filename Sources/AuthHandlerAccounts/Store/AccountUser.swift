import Foundation

/// A user of the `accounts` backend as the store keeps it (docs/ACCOUNTS.md "Storage").
///
/// The store checks only what its schema enforces (one user per normalised e-mail); every other rule (what may change
/// when, who may link) is the caller's.
package struct AccountUser: Sendable, Equatable {
    package var localID: LocalID
    /// The address as the user or the provider gave it: what is shown and where mail goes.
    package var email: String?
    /// ``email`` in the one normal form addresses are compared in, computed by the caller; unique among users.
    package var normalizedEmail: String?
    package var emailVerified: Bool
    package var displayName: String?
    package var photoURL: String?
    /// The password as an argon2id PHC string (`$argon2id$v=19$m=...`); nil for a user without a password.
    package var passwordHash: String?
    /// Bumped at every password change (and when a take-over removes the password), so that codes issued for an
    /// earlier password die.
    package var passwordVersion: Int
    package var disabled: Bool
    /// The custom claims as JSON text, put into the user's ID tokens.
    package var customClaims: String?
    package var createdAt: Date
    package var lastSignInAt: Date?
    /// ID tokens whose `auth_time` is before this are refused.
    package var validSince: Date

    package init(
        localID: LocalID, email: String? = nil, normalizedEmail: String? = nil, emailVerified: Bool = false,
        displayName: String? = nil, photoURL: String? = nil, passwordHash: String? = nil, passwordVersion: Int = 0,
        disabled: Bool = false, customClaims: String? = nil, createdAt: Date, lastSignInAt: Date? = nil,
        validSince: Date
    ) {
        self.localID = localID
        self.email = email
        self.normalizedEmail = normalizedEmail
        self.emailVerified = emailVerified
        self.displayName = displayName
        self.photoURL = photoURL
        self.passwordHash = passwordHash
        self.passwordVersion = passwordVersion
        self.disabled = disabled
        self.customClaims = customClaims
        self.createdAt = createdAt
        self.lastSignInAt = lastSignInAt
        self.validSince = validSince
    }
}

extension AccountUser: CustomStringConvertible {
    /// The id and flags only: no address, name or hash goes into a log through this.
    package var description: String {
        "AccountUser(\(localID), verified: \(emailVerified), password: \(passwordHash != nil), disabled: \(disabled))"
    }
}
