import Foundation

/// A ``CounterStore``'s counters in one SQLite table, `(key_hash BLOB PRIMARY KEY, count INTEGER, expires_at REAL)`,
/// shared by the package's SQLite stores: the session store's `counters` and the accounts store's own table. The
/// caller holds the connection for the call (its lock) and created the table in its migrations
/// (``createStatement``).
package struct SQLiteCounterTable: Sendable {
    /// The table's name: a constant of the caller, never input.
    package let name: String

    package init(name: String) {
        self.name = name
    }

    /// The SQL that creates the table and the index `sweep` uses, for the owner's migrations.
    package var createStatement: String {
        """
        CREATE TABLE \(name)(
            key_hash BLOB NOT NULL PRIMARY KEY,
            count INTEGER NOT NULL,
            expires_at REAL NOT NULL
        );
        CREATE INDEX \(name)_expires_at ON \(name)(expires_at);
        """
    }

    /// ``CounterStore/incrementCounter(key:window:)`` on `connection` at `now`.
    package func increment(key: String, window: Duration, now: Date, on connection: SQLiteConnection)
        throws(StoreError) -> CounterReading
    {
        let keyHash = try StoreKeyDigest.of(key)
        let now = now.timeIntervalSince1970
        // One statement, so one transaction, also across processes on the file: an expired row starts a new window.
        // In an upsert's SET every column reads the row as it was (https://sqlite.org/lang_upsert.html).
        return try connection.withStatement(
            """
            INSERT INTO \(name)(key_hash, count, expires_at) VALUES (?1, 1, ?2)
            ON CONFLICT(key_hash) DO UPDATE SET
                count = CASE WHEN \(name).expires_at <= ?3 THEN 1 ELSE \(name).count + 1 END,
                expires_at = CASE WHEN \(name).expires_at <= ?3 THEN excluded.expires_at ELSE \(name).expires_at END
            RETURNING count, expires_at
            """,
            operation: "increment counter"
        ) { statement throws(StoreError) -> CounterReading in
            try statement.bind(1, blob: keyHash)
            try statement.bind(2, double: now + window.timeInterval)
            try statement.bind(3, double: now)
            guard try statement.step() else {
                throw StoreError(.unavailable, detail: "increment counter: the upsert returned no row")
            }
            let reading = CounterReading(count: statement.int(0), remaining: .seconds(statement.double(1) - now))
            // Stepped to the end, or a commit error would be lost (RETURNING: https://sqlite.org/lang_returning.html).
            try statement.finish()
            return reading
        }
    }

    /// ``CounterStore/decrementCounter(key:)`` on `connection` at `now`.
    package func decrement(key: String, now: Date, on connection: SQLiteConnection) throws(StoreError) {
        let keyHash = try StoreKeyDigest.of(key)
        let now = now.timeIntervalSince1970
        // Two statements in one transaction, so no other process's count falls between them.
        try connection.inTransaction(operation: "decrement counter") { () throws(StoreError) in
            for sql in [
                "DELETE FROM \(name) WHERE key_hash = ?1 AND expires_at > ?2 AND count <= 1",
                "UPDATE \(name) SET count = count - 1 WHERE key_hash = ?1 AND expires_at > ?2 AND count > 1",
            ] {
                try connection.withStatement(sql, operation: "decrement counter") { statement throws(StoreError) in
                    try statement.bind(1, blob: keyHash)
                    try statement.bind(2, double: now)
                    try statement.finish()
                }
            }
        }
    }
}
