import Foundation

/// A ``CounterStore``'s counters in one PostgreSQL table, `(key_hash BYTEA PRIMARY KEY, count BIGINT, expires_at DOUBLE
/// PRECISION)`, as ``SQLiteCounterTable`` keeps them in a file: the caller runs each call in its transaction (an
/// increment is one statement, which may be a lone statement's: ``PostgresPool/statement(_:timeout:_:)``) and made the
/// table in its migrations. Every instance on the database counts in the same rows, so a throttle counts across
/// instances.
package struct PostgresCounterTable: Sendable {
    /// The table's name: a constant of the caller, never input.
    package let name: String

    package init(name: String) {
        self.name = name
    }

    /// ``CounterStore/incrementCounter(key:window:)`` in `transaction` at `now`.
    package func increment(key: String, window: Duration, now: Date, in transaction: PostgresTransaction)
        throws(StoreError) -> CounterReading
    {
        let keyHash = try StoreKeyDigest.of(key)
        let now = now.timeIntervalSince1970
        // One upsert: an expired row starts a new window. In ON CONFLICT's SET the table's name reads the row as it was
        // and `excluded` the proposed one (https://www.postgresql.org/docs/15/sql-insert.html#SQL-ON-CONFLICT).
        let reading = try transaction.first(
            """
            INSERT INTO \(name)(key_hash, count, expires_at) VALUES ($1, 1, $2)
            ON CONFLICT(key_hash) DO UPDATE SET
                count = CASE WHEN \(name).expires_at <= $3 THEN 1 ELSE \(name).count + 1 END,
                expires_at = CASE WHEN \(name).expires_at <= $3 THEN excluded.expires_at ELSE \(name).expires_at END
            RETURNING count, expires_at
            """, [.bytes(keyHash), .double(now + window.timeInterval), .double(now)]
        ) { row throws(StoreError) in CounterReading(count: row.int(0), remaining: .seconds(row.double(1) - now)) }
        guard let reading else {
            throw StoreError(.unavailable, detail: "increment counter: the upsert returned no row")
        }
        return reading
    }

    /// ``CounterStore/decrementCounter(key:)`` in `transaction` at `now`.
    package func decrement(key: String, now: Date, in transaction: PostgresTransaction) throws(StoreError) {
        let keyHash = try StoreKeyDigest.of(key)
        let now = PostgresValue(now)
        try transaction.run(
            "DELETE FROM \(name) WHERE key_hash = $1 AND expires_at > $2 AND count <= 1", [.bytes(keyHash), now])
        try transaction.run(
            "UPDATE \(name) SET count = count - 1 WHERE key_hash = $1 AND expires_at > $2 AND count > 1",
            [.bytes(keyHash), now])
    }
}
