import AuthHandlerStore
import Foundation

/// One-time codes, pending credentials, counters and expiry.
extension SQLiteAccountStore {
    package func insertCode(_ code: OneTimeCodeRecord) async throws(StoreError) {
        try transaction("insert code") { connection throws(StoreError) in
            try Self.checkNewDigest(code.digest, for: code.localID, in: "account_codes", connection)
            try connection.run(
                "INSERT INTO account_codes(\(SQLiteAccountRows.codeColumns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                operation: "insert code"
            ) { statement throws(StoreError) in
                try statement.bind(1, blob: code.digest)
                try statement.bind(2, text: code.kind.rawValue)
                try statement.bind(3, text: code.localID.value)
                try statement.bind(4, text: code.email)
                try statement.bind(5, optionalText: code.newEmail)
                try statement.bind(6, int: code.passwordVersion)
                try statement.bind(7, date: code.createdAt)
                try statement.bind(8, date: code.expiresAt)
            }
        }
    }

    package func peekCode(digest: [UInt8], now: Date) async throws(StoreError) -> OneTimeCodeRecord? {
        try live(
            "SELECT \(SQLiteAccountRows.codeColumns) FROM account_codes WHERE digest = ?1 AND expires_at > ?2",
            digest: digest, now: now, operation: "peek code", read: AccountRows.code)
    }

    package func takeCode(digest: [UInt8], now: Date) async throws(StoreError) -> OneTimeCodeRecord? {
        // One statement: of concurrent takers, one deletes the row and the others find none.
        try live(
            """
            DELETE FROM account_codes WHERE digest = ?1 AND expires_at > ?2
            RETURNING \(SQLiteAccountRows.codeColumns)
            """,
            digest: digest, now: now, operation: "take code", read: AccountRows.code)
    }

    package func deleteCodes(of localID: LocalID) async throws(StoreError) -> Int {
        try deleteAll(of: localID, in: "account_codes")
    }

    package func insertPendingCredential(_ credential: PendingCredentialRecord) async throws(StoreError) {
        try transaction("insert pending credential") { connection throws(StoreError) in
            try Self.checkNewDigest(
                credential.digest, for: credential.localID, in: "account_pending_credentials", connection)
            try connection.run(
                """
                INSERT INTO account_pending_credentials(\(SQLiteAccountRows.pendingCredentialColumns))
                VALUES (?1, ?2, ?3)
                """,
                operation: "insert pending credential"
            ) { statement throws(StoreError) in
                try statement.bind(1, blob: credential.digest)
                try statement.bind(2, text: credential.localID.value)
                try statement.bind(3, date: credential.expiresAt)
            }
        }
    }

    package func takePendingCredential(digest: [UInt8], now: Date) async throws(StoreError)
        -> PendingCredentialRecord?
    {
        try live(
            """
            DELETE FROM account_pending_credentials WHERE digest = ?1 AND expires_at > ?2
            RETURNING \(SQLiteAccountRows.pendingCredentialColumns)
            """,
            digest: digest, now: now, operation: "take pending credential", read: AccountRows.pendingCredential)
    }

    package func deletePendingCredentials(of localID: LocalID) async throws(StoreError) -> Int {
        try deleteAll(of: localID, in: "account_pending_credentials")
    }

    package func sweep(now: Date, idleSince: Date, signedInBefore: Date) async throws(StoreError) -> Int {
        try transaction("sweep accounts") { connection throws(StoreError) -> Int in
            var removed = 0
            for table in ["account_codes", "account_pending_credentials", "account_counters"] {
                removed += try connection.run(
                    "DELETE FROM \(table) WHERE expires_at <= ?1", operation: "sweep \(table)"
                ) { statement throws(StoreError) in try statement.bind(1, date: now) }
            }
            // A session's refresh tokens go with it (ON DELETE CASCADE), uncounted by `changes`
            // (https://sqlite.org/c3ref/changes.html).
            removed += try connection.run(
                """
                DELETE FROM account_sessions
                WHERE revoked_at IS NOT NULL OR last_refresh_at < ?1 OR signed_in_at < ?2
                """,
                operation: "sweep account_sessions"
            ) { statement throws(StoreError) in
                try statement.bind(1, date: idleSince)
                try statement.bind(2, date: signedInBefore)
            }
            return removed
        }
    }

    package func incrementCounter(key: String, window: Duration) async throws(StoreError) -> CounterReading {
        let now = self.now()
        return try locked { connection throws(StoreError) in
            try SQLiteAccountSchema.counters.increment(key: key, window: window, now: now, on: connection)
        }
    }

    package func decrementCounter(key: String) async throws(StoreError) {
        let now = self.now()
        try locked { connection throws(StoreError) in
            try SQLiteAccountSchema.counters.decrement(key: key, now: now, on: connection)
        }
    }

    /// The row of `digest` that `sql` (binding the digest to `?1` and now to `?2`) answers, decoded.
    private func live<Row: Sendable>(
        _ sql: String, digest: [UInt8], now: Date, operation: String,
        read: (SQLiteStatement) throws(StoreError) -> Row
    ) throws(StoreError) -> Row? {
        try locked { connection throws(StoreError) in
            try connection.firstRow(
                sql, operation: operation,
                bind: { statement throws(StoreError) in
                    try statement.bind(1, blob: digest)
                    try statement.bind(2, date: now)
                }, read: read)
        }
    }

    /// Deletes every row of the user in `table` (one of the store's own names); answers how many.
    private func deleteAll(of localID: LocalID, in table: String) throws(StoreError) -> Int {
        try locked { connection throws(StoreError) in
            try connection.run("DELETE FROM \(table) WHERE local_id = ?1", operation: "delete \(table) of user") {
                statement throws(StoreError) in try statement.bind(1, text: localID.value)
            }
        }
    }

    /// `.notFound` for no such user, `.conflict` for a digest `table` has.
    private static func checkNewDigest(
        _ digest: [UInt8], for localID: LocalID, in table: String, _ connection: SQLiteConnection
    ) throws(StoreError) {
        try requireUser(localID, "insert into \(table)", connection)
        if try digestExists(digest, in: table, connection) {
            throw StoreError(.conflict, detail: "insert into \(table): a record with this digest exists")
        }
    }
}
