import AuthHandlerStore
import AuthHandlerSystem
import Foundation
import Synchronization

/// The ``AccountStore`` on an SQLite file of its own (docs/ACCOUNTS.md "Storage"), opened as every SQLite store of the
/// package is (`SQLiteConnection.openStore`: created 0600, WAL, busy timeout, `secure_delete`), with foreign keys on
/// and the owner `accounts`'s forward-only migrations applied.
///
/// Concurrency as in `SQLiteSessionStore`: one connection opened `SQLITE_OPEN_NOMUTEX` behind a `Mutex`, taken on the
/// calling thread for a few statements on small rows; every write runs in `BEGIN IMMEDIATE`, so its checks and writes
/// are one transaction for this process and for any other on the file.
package final class SQLiteAccountStore: AccountStore {
    private let connection: Mutex<SQLiteConnection>
    let now: WallClock

    /// Opens (creating if needed, mode 0600) the accounts database at `path`, whose directory must exist; refuses a
    /// file written by a newer auth-handler.
    ///
    /// - Parameters:
    ///   - busyTimeout: how long a call waits for another process's lock on the file before `.unavailable`.
    ///   - now: the clock of the counters' windows.
    package init(
        path: String, busyTimeout: Duration = .seconds(2), now: @escaping WallClock = systemWallClock
    ) throws(StoreError) {
        let connection = try SQLiteConnection.openStore(path: path, busyTimeout: busyTimeout)
        // Per connection, and a no-op inside a transaction: https://sqlite.org/foreignkeys.html#fk_enable
        try connection.execute("PRAGMA foreign_keys = ON", operation: "enable foreign keys")
        let enabled = try connection.firstRow(
            "PRAGMA foreign_keys", operation: "read foreign_keys", bind: { _ throws(StoreError) in }
        ) { row throws(StoreError) in row.int(0) }
        guard enabled == 1 else {
            throw StoreError(.unavailable, detail: "enable foreign keys: this SQLite does not enforce them")
        }
        try SQLiteAccountSchema.accounts.migrate(connection, file: path)
        self.connection = Mutex(connection)
        self.now = now
    }

    /// Runs `body` with the connection, one caller at a time.
    func locked<Result: Sendable>(
        _ body: (SQLiteConnection) throws(StoreError) -> Result
    ) throws(StoreError) -> Result {
        try connection.withLock { connection throws(StoreError) -> Result in try body(connection) }
    }

    /// Runs `body` in one write transaction on the connection.
    func transaction<Result: Sendable>(
        _ operation: String, _ body: (SQLiteConnection) throws(StoreError) -> Result
    ) throws(StoreError) -> Result {
        try locked { connection throws(StoreError) in
            try connection.inTransaction(operation: operation) { () throws(StoreError) in try body(connection) }
        }
    }

    // MARK: - Users

    package func insertUser(_ user: AccountUser, identity: AccountIdentity?) async throws(StoreError) {
        if let identity, identity.localID != user.localID {
            throw StoreError(.constraint("identity"), detail: "insert user: the identity names another user")
        }
        try transaction("insert user") { connection throws(StoreError) in
            if try Self.userExists(user.localID, connection) {
                throw StoreError(.conflict, detail: "insert user: a user with this localId exists")
            }
            try Self.checkEmailFree(user, connection, operation: "insert user")
            try Self.writeUser(user, insert: true, connection)
            if let identity { try Self.insertIdentity(identity, connection, operation: "insert user") }
        }
    }

    package func user(localID: LocalID) async throws(StoreError) -> AccountUser? {
        try locked { connection throws(StoreError) in try Self.readUser(localID, connection, operation: "read user") }
    }

    /// The user row of `localID` on `connection` (inside the caller's lock or transaction).
    static func readUser(_ localID: LocalID, _ connection: SQLiteConnection, operation: String) throws(StoreError)
        -> AccountUser?
    {
        try connection.firstRow(
            "SELECT \(SQLiteAccountRows.userColumns) FROM account_users WHERE local_id = ?1", operation: operation,
            bind: { statement throws(StoreError) in try statement.bind(1, text: localID.value) },
            read: AccountRows.user)
    }

    package func user(normalizedEmail: String) async throws(StoreError) -> AccountUser? {
        try locked { connection throws(StoreError) in
            try connection.firstRow(
                "SELECT \(SQLiteAccountRows.userColumns) FROM account_users WHERE normalized_email = ?1",
                operation: "read user by e-mail",
                bind: { statement throws(StoreError) in try statement.bind(1, text: normalizedEmail) },
                read: AccountRows.user)
        }
    }

    package func updateUser(_ user: AccountUser) async throws(StoreError) {
        try transaction("update user") { connection throws(StoreError) in
            try Self.requireUser(user.localID, "update user", connection)
            try Self.checkEmailFree(user, connection, operation: "update user")
            try Self.writeUser(user, insert: false, connection)
        }
    }

    package func modifyUser(localID: LocalID, _ change: @Sendable (inout AccountUser) -> Void) async throws(StoreError)
        -> AccountUser?
    {
        // BEGIN IMMEDIATE takes the file's write lock before the read, so no other writer comes between.
        try transaction("modify user") { connection throws(StoreError) -> AccountUser? in
            guard var user = try Self.readUser(localID, connection, operation: "modify user") else { return nil }
            change(&user)
            guard user.localID == localID else {
                throw StoreError(.constraint("user"), detail: "modify user: the change named another localId")
            }
            try Self.checkEmailFree(user, connection, operation: "modify user")
            try Self.writeUser(user, insert: false, connection)
            return user
        }
    }

    package func deleteUser(localID: LocalID) async throws(StoreError) -> Bool {
        // Identities, sessions (and their refresh tokens), codes and pending credentials go by ON DELETE CASCADE.
        try locked { connection throws(StoreError) in
            try connection.run("DELETE FROM account_users WHERE local_id = ?1", operation: "delete user") {
                statement throws(StoreError) in try statement.bind(1, text: localID.value)
            } == 1
        }
    }

    package func listUsers(after: LocalID?, limit: Int) async throws(StoreError) -> [AccountUser] {
        try locked { connection throws(StoreError) in
            try connection.rows(
                """
                SELECT \(SQLiteAccountRows.userColumns) FROM account_users WHERE local_id > ?1
                ORDER BY local_id LIMIT ?2
                """,
                operation: "list users",
                bind: { statement throws(StoreError) in
                    // Every id is longer than the empty string, so no `after` lists from the first.
                    try statement.bind(1, text: after?.value ?? "")
                    try statement.bind(2, int: max(0, limit))
                },
                read: AccountRows.user)
        }
    }

    package func takeOver(localID: LocalID, identity: AccountIdentity, at: Date) async throws(StoreError)
        -> AccountUser
    {
        let identity = AccountIdentity(
            providerID: identity.providerID, providerUserID: identity.providerUserID, localID: localID,
            email: identity.email, displayName: identity.displayName, createdAt: identity.createdAt)
        return try transaction("take over user") { connection throws(StoreError) -> AccountUser in
            try Self.requireUser(localID, "take over user", connection)
            for table in ["account_identities", "account_codes", "account_pending_credentials"] {
                try connection.run("DELETE FROM \(table) WHERE local_id = ?1", operation: "take over user") {
                    statement throws(StoreError) in try statement.bind(1, text: localID.value)
                }
            }
            for sql in [
                "UPDATE account_sessions SET revoked_at = ?2 WHERE local_id = ?1 AND revoked_at IS NULL",
                """
                UPDATE account_users SET password_hash = NULL, legacy_password_hash = NULL,
                    password_version = password_version + 1, valid_since = ?2, email_verified = 1
                WHERE local_id = ?1
                """,
            ] {
                try connection.run(sql, operation: "take over user") { statement throws(StoreError) in
                    try statement.bind(1, text: localID.value)
                    try statement.bind(2, date: at)
                }
            }
            // After this user's own identities went, so that re-linking one it had is not refused.
            try Self.insertIdentity(identity, connection, operation: "take over user")
            guard let user = try Self.readUser(localID, connection, operation: "take over user") else {
                throw StoreError(.unavailable, detail: "take over user: the user vanished in its transaction")
            }
            return user
        }
    }

    package func resetPassword(localID: LocalID, passwordHash: String, provesAddress: Bool, at: Date)
        async throws(StoreError) -> AccountUser
    {
        try transaction("reset password") { connection throws(StoreError) -> AccountUser in
            try Self.requireUser(localID, "reset password", connection)
            let tables = (provesAddress ? ["account_identities"] : []) + ["account_pending_credentials"]
            for table in tables {
                try connection.run("DELETE FROM \(table) WHERE local_id = ?1", operation: "reset password") {
                    statement throws(StoreError) in try statement.bind(1, text: localID.value)
                }
            }
            try connection.run(
                "UPDATE account_sessions SET revoked_at = ?2 WHERE local_id = ?1 AND revoked_at IS NULL",
                operation: "reset password"
            ) { statement throws(StoreError) in
                try statement.bind(1, text: localID.value)
                try statement.bind(2, date: at)
            }
            try connection.run(
                """
                UPDATE account_users SET password_hash = ?3, legacy_password_hash = NULL,
                    password_version = password_version + 1, valid_since = ?2, email_verified = 1
                WHERE local_id = ?1
                """,
                operation: "reset password"
            ) { statement throws(StoreError) in
                try statement.bind(1, text: localID.value)
                try statement.bind(2, date: at)
                try statement.bind(3, text: passwordHash)
            }
            guard let user = try Self.readUser(localID, connection, operation: "reset password") else {
                throw StoreError(.unavailable, detail: "reset password: the user vanished in its transaction")
            }
            return user
        }
    }

    // MARK: - Identities

    package func identity(providerID: String, providerUserID: String) async throws(StoreError) -> AccountIdentity? {
        try locked { connection throws(StoreError) in
            try connection.firstRow(
                """
                SELECT \(SQLiteAccountRows.identityColumns) FROM account_identities
                WHERE provider_id = ?1 AND provider_user_id = ?2
                """,
                operation: "read identity",
                bind: { statement throws(StoreError) in
                    try statement.bind(1, text: providerID)
                    try statement.bind(2, text: providerUserID)
                },
                read: AccountRows.identity)
        }
    }

    package func identities(of localID: LocalID) async throws(StoreError) -> [AccountIdentity] {
        try locked { connection throws(StoreError) in
            try connection.rows(
                """
                SELECT \(SQLiteAccountRows.identityColumns) FROM account_identities WHERE local_id = ?1
                ORDER BY provider_id
                """,
                operation: "list identities",
                bind: { statement throws(StoreError) in try statement.bind(1, text: localID.value) },
                read: AccountRows.identity)
        }
    }

    package func identities(localIDsFrom first: LocalID, through last: LocalID) async throws(StoreError)
        -> [AccountIdentity]
    {
        try locked { connection throws(StoreError) in
            try connection.rows(
                """
                SELECT \(SQLiteAccountRows.identityColumns) FROM account_identities WHERE local_id BETWEEN ?1 AND ?2
                ORDER BY local_id, provider_id
                """,
                operation: "list identities",
                bind: { statement throws(StoreError) in
                    try statement.bind(1, text: first.value)
                    try statement.bind(2, text: last.value)
                },
                read: AccountRows.identity)
        }
    }

    package func linkIdentity(_ identity: AccountIdentity) async throws(StoreError) {
        try transaction("link identity") { connection throws(StoreError) in
            try Self.requireUser(identity.localID, "link identity", connection)
            try Self.insertIdentity(identity, connection, operation: "link identity")
        }
    }

    package func unlinkIdentity(localID: LocalID, providerID: String) async throws(StoreError) -> Bool {
        try locked { connection throws(StoreError) in
            try connection.run(
                "DELETE FROM account_identities WHERE local_id = ?1 AND provider_id = ?2", operation: "unlink identity"
            ) { statement throws(StoreError) in
                try statement.bind(1, text: localID.value)
                try statement.bind(2, text: providerID)
            } == 1
        }
    }
}
