import Foundation

/// A pending credential of `account-exists-with-different-credential`, as the store knows it: its SHA-256 digest, the
/// account it may be linked to, its expiry; used once. What it carries is sealed in the credential itself.
package struct PendingCredentialRecord: Sendable, Equatable {
    /// SHA-256 of the credential.
    package var digest: [UInt8]
    package var localID: LocalID
    package var expiresAt: Date

    package init(digest: [UInt8], localID: LocalID, expiresAt: Date) {
        self.digest = digest
        self.localID = localID
        self.expiresAt = expiresAt
    }
}
