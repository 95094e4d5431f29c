import AuthHandlerStore
import AuthHandlerSystem
import Foundation

/// The ``AccountStore`` on a PostgreSQL database shared by every instance (docs/ACCOUNTS.md "Storage"), through libpq
/// (``PostgresPool``): the same records, rules and errors as ``SQLiteAccountStore``, so `AccountStoreSemanticsTests`
/// runs unchanged on both.
///
/// Every operation is one `SERIALIZABLE` transaction, retried from the start on a serialisation failure or deadlock
/// (``PostgresPool/transaction(_:timeout:_:)``): its checks and writes behave as if no other instance's ran in between,
/// so of two instances rotating one refresh token one rotates, and of two sign-ups of one e-mail one inserts. An
/// operation that is exactly one statement, a read or a write whose condition is in the statement itself, runs it
/// alone as a serialisable implicit transaction (``PostgresPool/statement(_:timeout:_:)``): one round trip instead of
/// `BEGIN`, the statement and `COMMIT`, with the same guarantee. Every wait on the server is bounded by the statement
/// timeout: a stopped server costs an operation `.unavailable` within it.
package final class PostgresAccountStore: AccountStore {
    let pool: PostgresPool
    let now: WallClock

    /// Connects, applies the accounts' migrations under the advisory lock (refusing a database from a newer
    /// auth-handler), and starts the pool.
    package init(settings: PostgresSettings, now: @escaping WallClock = systemWallClock) throws(StoreError) {
        // Migrations may wait for another instance's; they get a longer deadline than one operation.
        let deadline = ContinuousClock.now + settings.statementTimeout * 5
        let connection = try PostgresConnection(parameters: settings.parameters, deadline: deadline)
        try PostgresAccountSchema.accounts.migrate(connection, database: settings.redactedURL, deadline: deadline)
        self.pool = PostgresPool(settings: settings, name: "auth-handler accounts PostgreSQL")
        self.now = now
    }

    /// Why the database cannot serve now, or nil (`/readyz`): a `SELECT 1` through the pool, within the statement
    /// timeout.
    package func healthProblem() async -> String? {
        do {
            _ = try await pool.run("readiness probe") { connection, deadline throws(StoreError) in
                try connection.execute("SELECT 1", operation: "readiness probe", deadline: deadline)
            }
            return nil
        } catch {
            return "accounts database: \(error.detail)"
        }
    }

    /// Runs `body` in one serialisable transaction, with a violated constraint mapped to the protocol's error.
    func transaction<Value: Sendable>(
        _ operation: String, timeout: Duration? = nil,
        _ body: @escaping @Sendable (PostgresTransaction) throws(StoreError) -> Value
    ) async throws(StoreError) -> Value {
        do {
            return try await pool.transaction(operation, timeout: timeout, body)
        } catch {
            throw Self.mapped(error)
        }
    }

    /// Runs `body`'s one statement alone as a serialisable transaction of its own, with a violated constraint mapped
    /// as in ``transaction(_:timeout:_:)``.
    func statement<Value: Sendable>(
        _ operation: String, _ body: @escaping @Sendable (PostgresTransaction) throws(StoreError) -> Value
    ) async throws(StoreError) -> Value {
        do {
            return try await pool.statement(operation, body)
        } catch {
            throw Self.mapped(error)
        }
    }

    /// A constraint named by PostgreSQL as the protocol names it: the e-mail, identity and provider rules by their
    /// names, a duplicate key as `.conflict`, a missing user or session (a foreign key) as `.notFound`.
    static func mapped(_ error: StoreError) -> StoreError {
        guard case .constraint(let name) = error.kind else { return error }
        let kind: StoreError.Kind =
            switch name {
            case "account_users_normalized_email": .constraint("email")
            case "account_identities_pkey": .constraint("identity")
            case "account_identities_user_provider": .constraint("provider")
            case _ where name.hasSuffix("_fkey"): .notFound
            case _ where name.hasSuffix("_pkey"): .conflict
            default: error.kind  // the store's own checks name the rule already
            }
        return StoreError(kind, detail: error.detail)
    }

    // MARK: - Users

    static let selectUser = "SELECT \(SQLiteAccountRows.userColumns) FROM account_users"

    package func insertUser(_ user: AccountUser, identity: AccountIdentity?) async throws(StoreError) {
        if let identity, identity.localID != user.localID {
            throw StoreError(.constraint("identity"), detail: "insert user: the identity names another user")
        }
        try await transaction("insert user") { transaction throws(StoreError) in
            if try Self.userExists(user.localID, transaction) {
                throw StoreError(.conflict, detail: "insert user: a user with this localId exists")
            }
            try Self.checkEmailFree(user, transaction)
            try Self.writeUser(user, insert: true, transaction)
            if let identity { try Self.insertIdentity(identity, transaction) }
        }
    }

    package func user(localID: LocalID) async throws(StoreError) -> AccountUser? {
        try await statement("read user") { transaction throws(StoreError) in
            try Self.readUser(localID, transaction)
        }
    }

    static func readUser(_ localID: LocalID, _ transaction: PostgresTransaction) throws(StoreError) -> AccountUser? {
        try transaction.first(
            "\(selectUser) WHERE local_id = $1", [.text(localID.value)], read: AccountRows.user)
    }

    package func user(normalizedEmail: String) async throws(StoreError) -> AccountUser? {
        try await statement("read user by e-mail") { transaction throws(StoreError) in
            try transaction.first(
                "\(Self.selectUser) WHERE normalized_email = $1", [.text(normalizedEmail)],
                read: AccountRows.user)
        }
    }

    package func updateUser(_ user: AccountUser) async throws(StoreError) {
        try await transaction("update user") { transaction throws(StoreError) in
            try Self.requireUser(user.localID, "update user", transaction)
            try Self.checkEmailFree(user, transaction)
            try Self.writeUser(user, insert: false, transaction)
        }
    }

    package func modifyUser(localID: LocalID, _ change: @Sendable (inout AccountUser) -> Void) async throws(StoreError)
        -> AccountUser?
    {
        // `change` cannot go to the pool's thread (it does not escape), so the change is made here between two
        // transactions: the second writes only if the user is still as the first read it, and otherwise all is done
        // again on the user as it now is (optimistic concurrency), so no write in between is lost or overwritten.
        for _ in 0..<PostgresAccountStore.modifyAttempts {
            guard let read = try await user(localID: localID) else { return nil }
            var user = read
            change(&user)
            guard user.localID == localID else {
                throw StoreError(.constraint("user"), detail: "modify user: the change named another localId")
            }
            let written = try await transaction("modify user") { [user] transaction throws(StoreError) -> Bool in
                guard try Self.readUser(localID, transaction) == read else { return false }
                try Self.checkEmailFree(user, transaction)
                try Self.writeUser(user, insert: false, transaction)
                return true
            }
            if written { return user }
        }
        throw StoreError(.unavailable, detail: "modify user: the user kept changing under the modification")
    }

    /// How often `modifyUser` starts again when another write came between its read and its write.
    static let modifyAttempts = 16

    package func deleteUser(localID: LocalID) async throws(StoreError) -> Bool {
        // Identities, sessions (and their refresh tokens), codes and pending credentials go by ON DELETE CASCADE, in
        // this one statement: nothing to read first, so it runs alone.
        try await statement("delete user") { transaction throws(StoreError) in
            try transaction.run("DELETE FROM account_users WHERE local_id = $1", [.text(localID.value)]) == 1
        }
    }

    package func listUsers(after: LocalID?, limit: Int) async throws(StoreError) -> [AccountUser] {
        try await statement("list users") { transaction throws(StoreError) in
            // Every id is longer than the empty string, so no `after` lists from the first. `COLLATE "C"` orders by
            // bytes, as SQLite's BINARY does.
            try transaction.rows(
                "\(Self.selectUser) WHERE local_id > $1 ORDER BY local_id COLLATE \"C\" LIMIT $2",
                [.text(after?.value ?? ""), .int(max(0, limit))], read: AccountRows.user)
        }
    }

    package func takeOver(localID: LocalID, identity: AccountIdentity, at: Date) async throws(StoreError)
        -> AccountUser
    {
        let identity = AccountIdentity(
            providerID: identity.providerID, providerUserID: identity.providerUserID, localID: localID,
            email: identity.email, displayName: identity.displayName, createdAt: identity.createdAt)
        return try await transaction("take over user") { transaction throws(StoreError) -> AccountUser in
            try Self.requireUser(localID, "take over user", transaction)
            let id = PostgresValue.text(localID.value)
            for table in ["account_identities", "account_codes", "account_pending_credentials"] {
                try transaction.run("DELETE FROM \(table) WHERE local_id = $1", [id])
            }
            try transaction.run(
                "UPDATE account_sessions SET revoked_at = $2 WHERE local_id = $1 AND revoked_at IS NULL",
                [id, PostgresValue(at)])
            try transaction.run(
                """
                UPDATE account_users SET password_hash = NULL, legacy_password_hash = NULL, password_version = password_version + 1,
                    valid_since = $2, email_verified = true
                WHERE local_id = $1
                """, [id, PostgresValue(at)])
            // After this user's own identities went, so that re-linking one it had is not refused.
            try Self.insertIdentity(identity, transaction)
            return try Self.existingUser(localID, transaction)
        }
    }

    package func resetPassword(localID: LocalID, passwordHash: String, provesAddress: Bool, at: Date)
        async throws(StoreError) -> AccountUser
    {
        try await transaction("reset password") { transaction throws(StoreError) -> AccountUser in
            try Self.requireUser(localID, "reset password", transaction)
            let id = PostgresValue.text(localID.value)
            for table in (provesAddress ? ["account_identities"] : []) + ["account_pending_credentials"] {
                try transaction.run("DELETE FROM \(table) WHERE local_id = $1", [id])
            }
            try transaction.run(
                "UPDATE account_sessions SET revoked_at = $2 WHERE local_id = $1 AND revoked_at IS NULL",
                [id, PostgresValue(at)])
            try transaction.run(
                """
                UPDATE account_users SET password_hash = $3, legacy_password_hash = NULL, password_version = password_version + 1,
                    valid_since = $2, email_verified = true
                WHERE local_id = $1
                """, [id, PostgresValue(at), .text(passwordHash)])
            return try Self.existingUser(localID, transaction)
        }
    }

    /// The user just written in this transaction.
    private static func existingUser(_ localID: LocalID, _ transaction: PostgresTransaction) throws(StoreError)
        -> AccountUser
    {
        guard let user = try readUser(localID, transaction) else {
            throw StoreError(.unavailable, detail: "\(transaction.operation): the user vanished in its transaction")
        }
        return user
    }

    // MARK: - Identities

    static let selectIdentity = "SELECT \(SQLiteAccountRows.identityColumns) FROM account_identities"

    package func identity(providerID: String, providerUserID: String) async throws(StoreError) -> AccountIdentity? {
        try await statement("read identity") { transaction throws(StoreError) in
            try transaction.first(
                "\(Self.selectIdentity) WHERE provider_id = $1 AND provider_user_id = $2",
                [.text(providerID), .text(providerUserID)], read: AccountRows.identity)
        }
    }

    package func identities(of localID: LocalID) async throws(StoreError) -> [AccountIdentity] {
        try await statement("list identities") { transaction throws(StoreError) in
            try transaction.rows(
                "\(Self.selectIdentity) WHERE local_id = $1 ORDER BY provider_id COLLATE \"C\"", [.text(localID.value)],
                read: AccountRows.identity)
        }
    }

    package func identities(localIDsFrom first: LocalID, through last: LocalID) async throws(StoreError)
        -> [AccountIdentity]
    {
        try await statement("list identities") { transaction throws(StoreError) in
            try transaction.rows(
                """
                \(Self.selectIdentity) WHERE local_id COLLATE "C" >= $1 AND local_id COLLATE "C" <= $2
                ORDER BY local_id COLLATE "C", provider_id COLLATE "C"
                """,
                [.text(first.value), .text(last.value)], read: AccountRows.identity)
        }
    }

    package func linkIdentity(_ identity: AccountIdentity) async throws(StoreError) {
        try await transaction("link identity") { transaction throws(StoreError) in
            try Self.requireUser(identity.localID, "link identity", transaction)
            try Self.insertIdentity(identity, transaction)
        }
    }

    package func unlinkIdentity(localID: LocalID, providerID: String) async throws(StoreError) -> Bool {
        // One DELETE, whose row count is the answer: nothing to read first, so it runs alone.
        try await statement("unlink identity") { transaction throws(StoreError) in
            try transaction.run(
                "DELETE FROM account_identities WHERE local_id = $1 AND provider_id = $2",
                [.text(localID.value), .text(providerID)]) == 1
        }
    }
}
