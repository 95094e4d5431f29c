import AuthHandlerStore
import Foundation

/// The checks and writes the accounts store's transactions share; each runs on a connection already in a transaction,
/// so a check and the write after it see the same file.
extension SQLiteAccountStore {
    static func userExists(_ localID: LocalID, _ connection: SQLiteConnection) throws(StoreError) -> Bool {
        try connection.exists("SELECT 1 FROM account_users WHERE local_id = ?1", operation: "find user") {
            statement throws(StoreError) in try statement.bind(1, text: localID.value)
        }
    }

    /// `.notFound` for `operation` unless the user `localID` exists.
    static func requireUser(_ localID: LocalID, _ operation: String, _ connection: SQLiteConnection) throws(StoreError)
    {
        guard try userExists(localID, connection) else {
            throw StoreError(.notFound, detail: "\(operation): no user with this localId")
        }
    }

    /// `.constraint("email")` when another user has the user's normalised e-mail. The UNIQUE index would refuse it
    /// too, but as a bare SQLite error; this check names the constraint.
    static func checkEmailFree(_ user: AccountUser, _ connection: SQLiteConnection, operation: String)
        throws(StoreError)
    {
        guard let normalizedEmail = user.normalizedEmail else { return }
        let taken = try connection.exists(
            "SELECT 1 FROM account_users WHERE normalized_email = ?1 AND local_id <> ?2", operation: operation
        ) { statement throws(StoreError) in
            try statement.bind(1, text: normalizedEmail)
            try statement.bind(2, text: user.localID.value)
        }
        if taken { throw StoreError(.constraint("email"), detail: "\(operation): another user has this e-mail") }
    }

    /// Inserts the user's row, or writes every column over the existing one.
    static func writeUser(_ user: AccountUser, insert: Bool, _ connection: SQLiteConnection) throws(StoreError) {
        let sql =
            insert
            ? """
            INSERT INTO account_users(\(SQLiteAccountRows.userColumns))
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)
            """
            : """
            UPDATE account_users SET email = ?2, normalized_email = ?3, email_verified = ?4, display_name = ?5,
                photo_url = ?6, password_hash = ?7, password_version = ?8, disabled = ?9, custom_claims = ?10,
                created_at = ?11, last_sign_in_at = ?12, valid_since = ?13, legacy_password_hash = ?14
            WHERE local_id = ?1
            """
        try connection.run(sql, operation: insert ? "insert user" : "update user") { statement throws(StoreError) in
            try statement.bind(1, text: user.localID.value)
            try statement.bind(2, optionalText: user.email)
            try statement.bind(3, optionalText: user.normalizedEmail)
            try statement.bind(4, bool: user.emailVerified)
            try statement.bind(5, optionalText: user.displayName)
            try statement.bind(6, optionalText: user.photoURL)
            try statement.bind(7, optionalText: user.passwordHash)
            try statement.bind(8, int: user.passwordVersion)
            try statement.bind(9, bool: user.disabled)
            try statement.bind(10, optionalText: user.customClaims)
            try statement.bind(11, date: user.createdAt)
            try statement.bind(12, optionalDate: user.lastSignInAt)
            try statement.bind(13, date: user.validSince)
            try statement.bind(14, optionalText: user.legacyPasswordHash)
        }
    }

    /// Inserts `identity` for its user: `.constraint("identity")` when any user has it, `.constraint("provider")` when
    /// its user has one of that provider.
    static func insertIdentity(_ identity: AccountIdentity, _ connection: SQLiteConnection, operation: String)
        throws(StoreError)
    {
        let taken = try connection.exists(
            "SELECT 1 FROM account_identities WHERE provider_id = ?1 AND provider_user_id = ?2", operation: operation
        ) { statement throws(StoreError) in
            try statement.bind(1, text: identity.providerID)
            try statement.bind(2, text: identity.providerUserID)
        }
        if taken { throw StoreError(.constraint("identity"), detail: "\(operation): the identity is linked") }
        let sameProvider = try connection.exists(
            "SELECT 1 FROM account_identities WHERE local_id = ?1 AND provider_id = ?2", operation: operation
        ) { statement throws(StoreError) in
            try statement.bind(1, text: identity.localID.value)
            try statement.bind(2, text: identity.providerID)
        }
        if sameProvider {
            throw StoreError(
                .constraint("provider"), detail: "\(operation): the user has an identity of \(identity.providerID)")
        }
        try connection.run(
            """
            INSERT INTO account_identities(\(SQLiteAccountRows.identityColumns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
            """,
            operation: operation
        ) { statement throws(StoreError) in
            try statement.bind(1, text: identity.providerID)
            try statement.bind(2, text: identity.providerUserID)
            try statement.bind(3, text: identity.localID.value)
            try statement.bind(4, optionalText: identity.email)
            try statement.bind(5, optionalText: identity.displayName)
            try statement.bind(6, date: identity.createdAt)
        }
    }

    /// Whether a row of `table` has `digest` as its key (`table` is one of the store's own names).
    static func digestExists(_ digest: [UInt8], in table: String, _ connection: SQLiteConnection) throws(StoreError)
        -> Bool
    {
        try connection.exists("SELECT 1 FROM \(table) WHERE digest = ?1", operation: "find \(table) digest") {
            statement throws(StoreError) in try statement.bind(1, blob: digest)
        }
    }
}
