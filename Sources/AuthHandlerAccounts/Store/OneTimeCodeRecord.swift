import Foundation

/// What an e-mail action code is for (Firebase's action-link `mode`).
package enum OneTimeCodeKind: String, Sendable, CaseIterable {
    case resetPassword
    case verifyEmail
    case verifyAndChangeEmail
    case recoverEmail
}

/// An e-mail action code as the store knows it: its SHA-256 digest, never the code (docs/ACCOUNTS.md "Storage").
///
/// It records the address and the password version it was issued for, so that the caller can refuse it once either
/// has changed.
package struct OneTimeCodeRecord: Sendable, Equatable {
    /// SHA-256 of the code.
    package var digest: [UInt8]
    package var kind: OneTimeCodeKind
    package var localID: LocalID
    /// The address the code was issued for.
    package var email: String
    /// The address a `verifyAndChangeEmail` code moves to, or the one a `recoverEmail` code moves away from.
    package var newEmail: String?
    package var passwordVersion: Int
    package var createdAt: Date
    package var expiresAt: Date

    package init(
        digest: [UInt8], kind: OneTimeCodeKind, localID: LocalID, email: String, newEmail: String? = nil,
        passwordVersion: Int, createdAt: Date, expiresAt: Date
    ) {
        self.digest = digest
        self.kind = kind
        self.localID = localID
        self.email = email
        self.newEmail = newEmail
        self.passwordVersion = passwordVersion
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
