/// What ``AccountStore/rotateRefreshToken(digest:successorDigest:sealedSuccessor:at:)`` did.
package enum RefreshTokenRotation: Sendable, Equatable {
    /// The token had no successor: the one given is now its successor, and the token is used.
    case rotated
    /// The token already had its successor, which stays: `record` is the token as stored (its ``RefreshTokenRecord/firstUsedAt``,
    /// successor digest and sealed successor), and `successorUsed` says whether that successor has been presented since.
    case alreadyRotated(RefreshTokenRecord, successorUsed: Bool)
}
