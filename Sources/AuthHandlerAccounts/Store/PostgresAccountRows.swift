import AuthHandlerStore
import Foundation

/// The decoding of a PostgreSQL row into an accounts record, for SELECTs that name the columns of
/// ``SQLiteAccountRows`` in its order (the two schemas share their column names).
enum PostgresAccountRows {
    static func user(_ row: PostgresRow) throws(StoreError) -> AccountUser {
        AccountUser(
            localID: try localID(row, 0), email: row.optionalText(1), normalizedEmail: row.optionalText(2),
            emailVerified: row.bool(3), displayName: row.optionalText(4), photoURL: row.optionalText(5),
            passwordHash: row.optionalText(6), passwordVersion: row.int(7), disabled: row.bool(8),
            customClaims: row.optionalText(9), createdAt: row.date(10), lastSignInAt: row.optionalDate(11),
            validSince: row.date(12), legacyPasswordHash: row.optionalText(13))
    }

    /// The user's values in ``SQLiteAccountRows/userColumns``'s order, for `$1`…`$14`.
    static func values(of user: AccountUser) -> [PostgresValue] {
        [
            .text(user.localID.value), PostgresValue(user.email), PostgresValue(user.normalizedEmail),
            .bool(user.emailVerified), PostgresValue(user.displayName), PostgresValue(user.photoURL),
            PostgresValue(user.passwordHash), .int(user.passwordVersion), .bool(user.disabled),
            PostgresValue(user.customClaims), PostgresValue(user.createdAt), PostgresValue(user.lastSignInAt),
            PostgresValue(user.validSince), PostgresValue(user.legacyPasswordHash),
        ]
    }

    static func identity(_ row: PostgresRow) throws(StoreError) -> AccountIdentity {
        AccountIdentity(
            providerID: row.text(0), providerUserID: row.text(1), localID: try localID(row, 2),
            email: row.optionalText(3), displayName: row.optionalText(4), createdAt: row.date(5))
    }

    static func session(_ row: PostgresRow) throws(StoreError) -> AccountSession {
        AccountSession(
            id: row.text(0), localID: try localID(row, 1), signInProvider: row.text(2), signedInAt: row.date(3),
            authTime: row.date(4), lastRefreshAt: row.date(5), revokedAt: row.optionalDate(6),
            cookieBound: row.bool(7))
    }

    static func refreshToken(_ row: PostgresRow) throws(StoreError) -> RefreshTokenRecord {
        RefreshTokenRecord(
            digest: row.bytes(0), sessionID: row.text(1), issuedAt: row.date(2), firstUsedAt: row.optionalDate(3),
            successorDigest: row.optionalBytes(4), sealedSuccessor: row.optionalBytes(5))
    }

    static func code(_ row: PostgresRow) throws(StoreError) -> OneTimeCodeRecord {
        guard let kind = OneTimeCodeKind(rawValue: row.text(1)) else {
            throw StoreError(
                .unavailable, detail: "read a one-time code: unknown kind \"\(row.text(1))\" in the database")
        }
        return OneTimeCodeRecord(
            digest: row.bytes(0), kind: kind, localID: try localID(row, 2), email: row.text(3),
            newEmail: row.optionalText(4), passwordVersion: row.int(5), createdAt: row.date(6),
            expiresAt: row.date(7))
    }

    static func pendingCredential(_ row: PostgresRow) throws(StoreError) -> PendingCredentialRecord {
        PendingCredentialRecord(digest: row.bytes(0), localID: try localID(row, 1), expiresAt: row.date(2))
    }

    private static func localID(_ row: PostgresRow, _ column: Int) throws(StoreError) -> LocalID {
        guard let localID = LocalID(row.text(column)) else {
            throw StoreError(.unavailable, detail: "read an accounts record: a malformed localId in the database")
        }
        return localID
    }
}
