import Foundation

/// A refresh token as the store knows it: its SHA-256 digest, never the token (docs/ACCOUNTS.md "Storage").
///
/// Its one successor is fixed at its first use (``AccountStore/rotateRefreshToken(digest:successorDigest:sealedSuccessor:at:)``):
/// the successor's digest, and the successor itself sealed by the caller under a key derived from this token, so that
/// only this token's holder can open it.
package struct RefreshTokenRecord: Sendable, Equatable {
    /// SHA-256 of the token.
    package var digest: [UInt8]
    /// The ``AccountSession/id`` of its family.
    package var sessionID: String
    package var issuedAt: Date
    /// When it was first presented; nil while it has never been used.
    package var firstUsedAt: Date?
    package var successorDigest: [UInt8]?
    /// The successor token sealed by the caller: opaque bytes to the store.
    package var sealedSuccessor: [UInt8]?

    package init(
        digest: [UInt8], sessionID: String, issuedAt: Date, firstUsedAt: Date? = nil, successorDigest: [UInt8]? = nil,
        sealedSuccessor: [UInt8]? = nil
    ) {
        self.digest = digest
        self.sessionID = sessionID
        self.issuedAt = issuedAt
        self.firstUsedAt = firstUsedAt
        self.successorDigest = successorDigest
        self.sealedSuccessor = sealedSuccessor
    }
}
