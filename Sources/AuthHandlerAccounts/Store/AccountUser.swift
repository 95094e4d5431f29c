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
    /// A password hash imported from another system and not yet checked (docs/ACCOUNTS.md "Imported users"), in the
    /// PHC-like form ``LegacyPasswordHash`` reads: `$firescrypt$ln=14,r=8,p=1$SALT$HASH` or a bcrypt `$2b$12$...`.
    /// Never a project-wide secret (Firebase's signer key comes from the configuration). At most one of this and
    /// ``passwordHash`` is set: the first successful sign-in replaces it with an argon2id ``passwordHash``, and every
    /// password change, reset or removal clears it.
    package var legacyPasswordHash: String?
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
        validSince: Date, legacyPasswordHash: String? = nil
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
        self.legacyPasswordHash = legacyPasswordHash
    }

    /// Whether the user has a password of either kind: an argon2id hash or an imported one not yet upgraded.
    package var hasPassword: Bool { passwordHash != nil || legacyPasswordHash != nil }

    /// Sets the argon2id `hash` as the user's password (nil: none), dropping any imported hash it replaces.
    package mutating func setPasswordHash(_ hash: String?) {
        passwordHash = hash
        legacyPasswordHash = nil
    }
}

extension AccountUser: CustomStringConvertible {
    /// The id and flags only: no address, name or hash goes into a log through this.
    package var description: String {
        "AccountUser(\(localID), verified: \(emailVerified), password: \(hasPassword), disabled: \(disabled))"
    }
}
