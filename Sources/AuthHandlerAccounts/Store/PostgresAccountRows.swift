import AuthHandlerStore
import Foundation

/// PostgreSQL's decoders, each ``AccountRows``' on a ``PostgresRecordRow`` (the same code as SQLite's), for SELECTs that
/// name the columns of ``SQLiteAccountRows`` in its order; and a user's values to bind.
enum PostgresAccountRows {
    static func user(_ row: PostgresRow) throws(StoreError) -> AccountUser {
        try AccountRows.user(PostgresRecordRow(row: row))
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
        try AccountRows.identity(PostgresRecordRow(row: row))
    }

    static func session(_ row: PostgresRow) throws(StoreError) -> AccountSession {
        try AccountRows.session(PostgresRecordRow(row: row))
    }

    static func refreshToken(_ row: PostgresRow) -> RefreshTokenRecord {
        AccountRows.refreshToken(PostgresRecordRow(row: row))
    }

    static func code(_ row: PostgresRow) throws(StoreError) -> OneTimeCodeRecord {
        try AccountRows.code(PostgresRecordRow(row: row))
    }

    static func pendingCredential(_ row: PostgresRow) throws(StoreError) -> PendingCredentialRecord {
        try AccountRows.pendingCredential(PostgresRecordRow(row: row))
    }
}
