import AuthHandlerStore
import Foundation

/// One-time codes, pending credentials, counters and expiry.
extension PostgresAccountStore {
    package func insertCode(_ code: OneTimeCodeRecord) async throws(StoreError) {
        try await transaction("insert code") { transaction throws(StoreError) in
            try Self.checkNewDigest(code.digest, for: code.localID, in: "account_codes", transaction)
            try transaction.run(
                "INSERT INTO account_codes(\(SQLiteAccountRows.codeColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                [
                    .bytes(code.digest), .text(code.kind.rawValue), .text(code.localID.value), .text(code.email),
                    PostgresValue(code.newEmail), .int(code.passwordVersion), PostgresValue(code.createdAt),
                    PostgresValue(code.expiresAt),
                ])
        }
    }

    package func peekCode(digest: [UInt8], now: Date) async throws(StoreError) -> OneTimeCodeRecord? {
        try await live(
            "SELECT \(SQLiteAccountRows.codeColumns) FROM account_codes WHERE digest = $1 AND expires_at > $2",
            digest: digest, now: now, operation: "peek code", read: AccountRows.code)
    }

    package func takeCode(digest: [UInt8], now: Date) async throws(StoreError) -> OneTimeCodeRecord? {
        // One statement, alone, as a serialisable transaction: of concurrent takers, one deletes the row and the others
        // find none.
        try await live(
            """
            DELETE FROM account_codes WHERE digest = $1 AND expires_at > $2
            RETURNING \(SQLiteAccountRows.codeColumns)
            """,
            digest: digest, now: now, operation: "take code", read: AccountRows.code)
    }

    package func deleteCodes(of localID: LocalID) async throws(StoreError) -> Int {
        try await deleteAll(of: localID, in: "account_codes")
    }

    package func insertPendingCredential(_ credential: PendingCredentialRecord) async throws(StoreError) {
        try await transaction("insert pending credential") { transaction throws(StoreError) in
            try Self.checkNewDigest(
                credential.digest, for: credential.localID, in: "account_pending_credentials", transaction)
            try transaction.run(
                """
                INSERT INTO account_pending_credentials(\(SQLiteAccountRows.pendingCredentialColumns))
                VALUES ($1, $2, $3)
                """,
                [.bytes(credential.digest), .text(credential.localID.value), PostgresValue(credential.expiresAt)])
        }
    }

    package func takePendingCredential(digest: [UInt8], now: Date) async throws(StoreError)
        -> PendingCredentialRecord?
    {
        try await live(
            """
            DELETE FROM account_pending_credentials WHERE digest = $1 AND expires_at > $2
            RETURNING \(SQLiteAccountRows.pendingCredentialColumns)
            """,
            digest: digest, now: now, operation: "take pending credential",
            read: AccountRows.pendingCredential)
    }

    package func deletePendingCredentials(of localID: LocalID) async throws(StoreError) -> Int {
        try await deleteAll(of: localID, in: "account_pending_credentials")
    }

    package func sweep(now: Date, idleSince: Date, signedInBefore: Date) async throws(StoreError) -> Int {
        try await transaction("sweep accounts") { transaction throws(StoreError) -> Int in
            var removed = 0
            for table in ["account_codes", "account_pending_credentials", "account_counters"] {
                removed += try transaction.run("DELETE FROM \(table) WHERE expires_at <= $1", [PostgresValue(now)])
            }
            // A session's refresh tokens go with it (ON DELETE CASCADE), uncounted by the DELETE's row count.
            removed += try transaction.run(
                """
                DELETE FROM account_sessions
                WHERE revoked_at IS NOT NULL OR last_refresh_at < $1 OR signed_in_at < $2
                """, [PostgresValue(idleSince), PostgresValue(signedInBefore)])
            return removed
        }
    }

    package func incrementCounter(key: String, window: Duration) async throws(StoreError) -> CounterReading {
        let now = self.now()
        // One upsert (PostgresCounterTable), which reads the row it writes: it runs alone.
        return try await statement("increment counter") { transaction throws(StoreError) -> CounterReading in
            try PostgresAccountSchema.counters.increment(key: key, window: window, now: now, in: transaction)
        }
    }

    package func decrementCounter(key: String) async throws(StoreError) {
        let now = self.now()
        try await transaction("decrement counter") { transaction throws(StoreError) in
            try PostgresAccountSchema.counters.decrement(key: key, now: now, in: transaction)
        }
    }

    /// The row of `digest` that `sql` (binding the digest to `$1` and now to `$2`), one statement run alone,
    /// answers, decoded.
    private func live<Row: Sendable>(
        _ sql: String, digest: [UInt8], now: Date, operation: String,
        read: @escaping @Sendable (PostgresRow) throws(StoreError) -> Row
    ) async throws(StoreError) -> Row? {
        try await statement(operation) { transaction throws(StoreError) in
            try transaction.first(sql, [.bytes(digest), PostgresValue(now)], read: read)
        }
    }

    /// Deletes every row of the user in `table` (one of the store's own names); answers how many. One DELETE, alone.
    private func deleteAll(of localID: LocalID, in table: String) async throws(StoreError) -> Int {
        try await statement("delete \(table) of user") { transaction throws(StoreError) in
            try transaction.run("DELETE FROM \(table) WHERE local_id = $1", [.text(localID.value)])
        }
    }
}
