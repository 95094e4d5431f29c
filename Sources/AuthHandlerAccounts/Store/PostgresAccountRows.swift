import AuthHandlerStore
import Foundation

/// A user's values to bind on PostgreSQL, in ``SQLiteAccountRows/userColumns``' order (``AccountRows`` decodes the
/// rows of either engine).
enum PostgresAccountRows {
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
}
