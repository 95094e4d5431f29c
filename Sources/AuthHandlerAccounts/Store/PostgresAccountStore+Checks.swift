import AuthHandlerStore
import Foundation

/// The checks and writes the PostgreSQL store's transactions share; each runs inside the caller's serialisable
/// transaction, so a check and the write after it see the same database.
extension PostgresAccountStore {
    static func userExists(_ localID: LocalID, _ transaction: PostgresTransaction) throws(StoreError) -> Bool {
        try transaction.exists("SELECT 1 FROM account_users WHERE local_id = $1", [.text(localID.value)])
    }

    /// `.notFound` for `operation` unless the user `localID` exists.
    static func requireUser(_ localID: LocalID, _ operation: String, _ transaction: PostgresTransaction)
        throws(StoreError)
    {
        guard try userExists(localID, transaction) else {
            throw StoreError(.notFound, detail: "\(operation): no user with this localId")
        }
    }

    /// `.constraint("email")` when another user has the user's normalised e-mail (the unique index would refuse it
    /// too; this check names it before the write).
    static func checkEmailFree(_ user: AccountUser, _ transaction: PostgresTransaction) throws(StoreError) {
        guard let normalizedEmail = user.normalizedEmail else { return }
        let taken = try transaction.exists(
            "SELECT 1 FROM account_users WHERE normalized_email = $1 AND local_id <> $2",
            [.text(normalizedEmail), .text(user.localID.value)])
        if taken {
            throw StoreError(.constraint("email"), detail: "\(transaction.operation): another user has this e-mail")
        }
    }

    /// Inserts the user's row, or writes every column over the existing one.
    static func writeUser(_ user: AccountUser, insert: Bool, _ transaction: PostgresTransaction) throws(StoreError) {
        let sql =
            insert
            ? """
            INSERT INTO account_users(\(SQLiteAccountRows.userColumns))
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
            """
            : """
            UPDATE account_users SET email = $2, normalized_email = $3, email_verified = $4, display_name = $5,
                photo_url = $6, password_hash = $7, password_version = $8, disabled = $9, custom_claims = $10,
                created_at = $11, last_sign_in_at = $12, valid_since = $13, legacy_password_hash = $14
            WHERE local_id = $1
            """
        try transaction.run(sql, PostgresAccountRows.values(of: user))
    }

    /// Inserts `identity` for its user: `.constraint("identity")` when any user has it, `.constraint("provider")` when
    /// its user has one of that provider.
    static func insertIdentity(_ identity: AccountIdentity, _ transaction: PostgresTransaction) throws(StoreError) {
        let operation = transaction.operation
        let taken = try transaction.exists(
            "SELECT 1 FROM account_identities WHERE provider_id = $1 AND provider_user_id = $2",
            [.text(identity.providerID), .text(identity.providerUserID)])
        if taken { throw StoreError(.constraint("identity"), detail: "\(operation): the identity is linked") }
        let sameProvider = try transaction.exists(
            "SELECT 1 FROM account_identities WHERE local_id = $1 AND provider_id = $2",
            [.text(identity.localID.value), .text(identity.providerID)])
        if sameProvider {
            throw StoreError(
                .constraint("provider"), detail: "\(operation): the user has an identity of \(identity.providerID)")
        }
        try transaction.run(
            "INSERT INTO account_identities(\(SQLiteAccountRows.identityColumns)) VALUES ($1, $2, $3, $4, $5, $6)",
            [
                .text(identity.providerID), .text(identity.providerUserID), .text(identity.localID.value),
                PostgresValue(identity.email), PostgresValue(identity.displayName), PostgresValue(identity.createdAt),
            ])
    }

    /// Whether a row of `table` (one of the store's own names) has `digest` as its key.
    static func digestExists(_ digest: [UInt8], in table: String, _ transaction: PostgresTransaction)
        throws(StoreError) -> Bool
    {
        try transaction.exists("SELECT 1 FROM \(table) WHERE digest = $1", [.bytes(digest)])
    }

    /// `.notFound` for no such user, `.conflict` for a digest `table` has.
    static func checkNewDigest(
        _ digest: [UInt8], for localID: LocalID, in table: String, _ transaction: PostgresTransaction
    ) throws(StoreError) {
        try requireUser(localID, "insert into \(table)", transaction)
        if try digestExists(digest, in: table, transaction) {
            throw StoreError(.conflict, detail: "insert into \(table): a record with this digest exists")
        }
    }
}
