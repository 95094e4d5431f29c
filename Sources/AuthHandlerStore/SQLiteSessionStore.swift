import AuthHandlerSystem
import Foundation
import Synchronization

/// A `SessionStore` and `DeviceStore` in one SQLite file (WAL mode), so a restart loses no used-state record,
/// unredeemed result, device record or count, and every process on one machine that opens the file counts together.
///
/// Concurrency: one connection, opened `SQLITE_OPEN_NOMUTEX`, behind a `Mutex`. Our own lock rather than
/// `SQLITE_OPEN_FULLMUTEX` because FULLMUTEX serializes single calls only: it would not keep a claim and its
/// follow-up read in one critical section, nor keep `sqlite3_errmsg` belonging to the call that failed. The async
/// methods take the lock on the calling cooperative thread: each holds it for one or two statements on tiny
/// rows (microseconds; WAL with `synchronous=NORMAL` does not fsync on commit), so a dedicated thread would
/// cost more than it saves. The one long wait is another process holding the file's write lock, bounded by
/// the busy timeout.
package final class SQLiteSessionStore: SessionStore, DeviceStore {
    private let connection: Mutex<SQLiteConnection>
    private let now: WallClock

    /// Opens (creating if needed, mode 0600) the store at `path`, whose directory must exist.
    ///
    /// - Parameters:
    ///   - busyTimeout: how long a call waits for another process's lock on the file before `.unavailable`.
    ///   - now: the clock deciding whether a recorded state has expired and may be recorded again.
    package init(
        path: String,
        busyTimeout: Duration = .seconds(2),
        now: @escaping WallClock = systemWallClock
    ) throws(StoreError) {
        // The file's tables of other owners (SQLiteMigrations) are not this store's to migrate.
        let connection = try SQLiteConnection.openStore(path: path, busyTimeout: busyTimeout)
        try SQLiteSchema.sessions.migrate(connection)
        self.connection = Mutex(connection)
        self.now = now
    }

    package func recordUsedState(key: String, expiresAt: Date) async throws(StoreError) -> Bool {
        try upsertUnlessLive(
            """
            INSERT INTO used_states(state_hash, expires_at) VALUES (?1, ?2)
            ON CONFLICT(state_hash) DO UPDATE SET expires_at = excluded.expires_at WHERE used_states.expires_at <= ?3
            """,
            key: key, expiresAt: expiresAt, operation: "record used state"
        )
    }

    /// Runs the upsert `sql` with `key`'s hash bound to `?1`, `expiresAt` to `?2` and now to `?3`, and says whether it
    /// inserted a row (or revived an expired one). One statement, so one transaction: of two callers only one does.
    private func upsertUnlessLive(
        _ sql: String, key: String, expiresAt: Date, operation: String
    ) throws(StoreError) -> Bool {
        let keyHash = try StoreKeyDigest.of(key)
        let now = self.now().timeIntervalSince1970
        return try locked { connection throws(StoreError) in
            try connection.withStatement(sql, operation: operation) { statement throws(StoreError) in
                try statement.bind(1, blob: keyHash)
                try statement.bind(2, double: expiresAt.timeIntervalSince1970)
                try statement.bind(3, double: now)
                try statement.finish()
            }
            return connection.changes == 1
        }
    }

    package func insertResult(code: String, payload: [UInt8], expiresAt: Date) async throws(StoreError) {
        try runOnResult(
            "INSERT INTO results(code_hash, payload, expires_at) VALUES (?1, ?2, ?3)", code: code,
            operation: "insert result"
        ) { statement throws(StoreError) in
            try statement.bind(2, blob: payload)
            try statement.bind(3, double: expiresAt.timeIntervalSince1970)
        }
    }

    package func peekResult(code: String, now: Date) async throws(StoreError) -> ResultLookup {
        let codeHash = try StoreKeyDigest.of(code)
        let nowSeconds = now.timeIntervalSince1970
        return try locked { connection throws(StoreError) in try Self.lookup(codeHash, at: nowSeconds, connection) }
    }

    package func claimResult(code: String, now: Date) async throws(StoreError) -> ResultLookup {
        let codeHash = try StoreKeyDigest.of(code)
        let nowSeconds = now.timeIntervalSince1970
        return try locked { connection throws(StoreError) in
            // The claim lasts as long as the result: it ends by release or delete, never by lapsing while the result
            // is still redeemable (a redeemed code whose delete failed must not succeed a second time).
            let claimed = try connection.withStatement(
                """
                UPDATE results SET claimed_until = expires_at
                WHERE code_hash = ?1 AND expires_at > ?2 AND (claimed_until IS NULL OR claimed_until <= ?2)
                RETURNING payload
                """,
                operation: "claim result"
            ) { statement throws(StoreError) -> [UInt8]? in
                try statement.bind(1, blob: codeHash)
                try statement.bind(2, double: nowSeconds)
                guard try statement.step() else { return nil }
                let payload = statement.blob(0)
                try statement.finish()
                return payload
            }
            if let claimed { return .available(claimed) }
            // Under the same lock, so nothing changed since the UPDATE: absent, or held by another redemption.
            return try Self.lookup(codeHash, at: nowSeconds, connection) == .absent ? .absent : .claimed
        }
    }

    /// A result's state at `now`, read on a locked connection.
    private static func lookup(_ codeHash: [UInt8], at now: Double, _ connection: SQLiteConnection)
        throws(StoreError) -> ResultLookup
    {
        try connection.withStatement(
            "SELECT payload, claimed_until FROM results WHERE code_hash = ?1 AND expires_at > ?2",
            operation: "read result"
        ) { statement throws(StoreError) -> ResultLookup in
            try statement.bind(1, blob: codeHash)
            try statement.bind(2, double: now)
            guard try statement.step() else { return .absent }
            // A NULL claimed_until reads as 0.0: unclaimed.
            if statement.double(1) > now { return .claimed }
            return .available(statement.blob(0))
        }
    }

    package func releaseResult(code: String) async throws(StoreError) {
        try runOnResult(
            "UPDATE results SET claimed_until = NULL WHERE code_hash = ?1", code: code, operation: "release result")
    }

    package func deleteResult(code: String) async throws(StoreError) {
        try runOnResult("DELETE FROM results WHERE code_hash = ?1", code: code, operation: "delete result")
    }

    /// Runs `sql` for its effect on the row of `code` (a result's, or any key's), whose hash is bound to `?1`; `bind`
    /// binds the rest.
    private func runOnResult(
        _ sql: String, code: String, operation: String,
        bind: (SQLiteStatement) throws(StoreError) -> Void = { _ in }
    ) throws(StoreError) {
        let codeHash = try StoreKeyDigest.of(code)
        try locked { connection throws(StoreError) in
            try connection.withStatement(sql, operation: operation) { statement throws(StoreError) in
                try statement.bind(1, blob: codeHash)
                try bind(statement)
                try statement.finish()
            }
        }
    }

    package func incrementCounter(key: String, window: Duration) async throws(StoreError) -> CounterReading {
        let now = self.now()
        return try locked { connection throws(StoreError) in
            try Self.counters.increment(key: key, window: window, now: now, on: connection)
        }
    }

    package func decrementCounter(key: String) async throws(StoreError) {
        let now = self.now()
        try locked { connection throws(StoreError) in try Self.counters.decrement(key: key, now: now, on: connection) }
    }

    /// The `counters` table of schema version 3.
    private static let counters = SQLiteCounterTable(name: "counters")

    // MARK: - DeviceStore

    package func putDeviceRecord(
        kind: DeviceRecordKind, key: String, payload: [UInt8], expiresAt: Date
    ) async throws(StoreError) {
        let keyHash = try StoreKeyDigest.of(key)
        let now = self.now().timeIntervalSince1970
        // One statement, so one transaction: only an expired record is replaced, and of two callers with one key the
        // second changes no row, which is the conflict.
        let stored = try locked { connection throws(StoreError) in
            try connection.withStatement(
                """
                INSERT INTO device_records(kind, key_hash, payload, expires_at) VALUES (?1, ?2, ?3, ?4)
                ON CONFLICT(kind, key_hash) DO UPDATE SET payload = excluded.payload, expires_at = excluded.expires_at
                WHERE device_records.expires_at <= ?5
                """,
                operation: "put device record"
            ) { statement throws(StoreError) in
                try statement.bind(1, text: kind.rawValue)
                try statement.bind(2, blob: keyHash)
                try statement.bind(3, blob: payload)
                try statement.bind(4, double: expiresAt.timeIntervalSince1970)
                try statement.bind(5, double: now)
                try statement.finish()
            }
            return connection.changes == 1
        }
        guard stored else {
            throw StoreError(.conflict, detail: "put device record: a \(kind.rawValue) record with this key exists")
        }
    }

    package func deviceRecord(kind: DeviceRecordKind, key: String, now: Date) async throws(StoreError) -> [UInt8]? {
        let keyHash = try StoreKeyDigest.of(key)
        let nowSeconds = now.timeIntervalSince1970
        return try locked { connection throws(StoreError) in
            try connection.withStatement(
                "SELECT payload FROM device_records WHERE kind = ?1 AND key_hash = ?2 AND expires_at > ?3",
                operation: "read device record"
            ) { statement throws(StoreError) -> [UInt8]? in
                try statement.bind(1, text: kind.rawValue)
                try statement.bind(2, blob: keyHash)
                try statement.bind(3, double: nowSeconds)
                guard try statement.step() else { return nil }
                return statement.blob(0)
            }
        }
    }

    package func deleteDeviceRecord(kind: DeviceRecordKind, key: String) async throws(StoreError) {
        try runOnResult(
            "DELETE FROM device_records WHERE key_hash = ?1 AND kind = ?2", code: key, operation: "delete device record"
        ) { statement throws(StoreError) in
            try statement.bind(2, text: kind.rawValue)
        }
    }

    package func decideOnce(key: String, expiresAt: Date) async throws(StoreError) -> Bool {
        // As recordUsedState: one upsert, which only an expired decision lets through again.
        try upsertUnlessLive(
            """
            INSERT INTO device_decisions(key_hash, expires_at) VALUES (?1, ?2)
            ON CONFLICT(key_hash) DO UPDATE SET expires_at = excluded.expires_at
            WHERE device_decisions.expires_at <= ?3
            """,
            key: key, expiresAt: expiresAt, operation: "decide once"
        )
    }

    package func isDecided(key: String, now: Date) async throws(StoreError) -> Bool {
        let keyHash = try StoreKeyDigest.of(key)
        let nowSeconds = now.timeIntervalSince1970
        return try locked { connection throws(StoreError) in
            try connection.withStatement(
                "SELECT 1 FROM device_decisions WHERE key_hash = ?1 AND expires_at > ?2", operation: "read decision"
            ) { statement throws(StoreError) -> Bool in
                try statement.bind(1, blob: keyHash)
                try statement.bind(2, double: nowSeconds)
                return try statement.step()
            }
        }
    }

    package func sweep(now: Date) async throws(StoreError) -> Int {
        let nowSeconds = now.timeIntervalSince1970
        return try locked { connection throws(StoreError) in
            try connection.inTransaction(operation: "sweep") { () throws(StoreError) in
                var removed = 0
                for table in ["used_states", "results", "counters", "device_records", "device_decisions"] {
                    try connection.withStatement(
                        "DELETE FROM \(table) WHERE expires_at <= ?1", operation: "sweep \(table)"
                    ) { statement throws(StoreError) in
                        try statement.bind(1, double: nowSeconds)
                        try statement.finish()
                    }
                    removed += connection.changes
                }
                return removed
            }
        }
    }

    package func healthProblem() async -> String? {
        do {
            // Reads a table, so a file that became unreadable or corrupt shows here, with SQLite's reason.
            try locked { connection throws(StoreError) in
                try connection.withStatement("SELECT 1 FROM results LIMIT 1", operation: "health check") {
                    statement throws(StoreError) in
                    try statement.finish()
                }
            }
            return nil
        } catch {
            return error.detail
        }
    }

    /// Runs SQL on the store's connection, for tests that change per-connection limits (`max_page_count`).
    func executeOnConnection(_ sql: String) throws(StoreError) {
        try locked { connection throws(StoreError) in try connection.execute(sql, operation: "test") }
    }

    /// Runs `body` with the connection, one caller at a time.
    private func locked<Result: Sendable>(
        _ body: (SQLiteConnection) throws(StoreError) -> Result
    ) throws(StoreError) -> Result {
        try connection.withLock { connection throws(StoreError) -> Result in try body(connection) }
    }
}
