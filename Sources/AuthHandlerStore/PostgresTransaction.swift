import Foundation

/// A serialisable transaction on a pooled connection: what a PostgreSQL store's operation runs its statements in.
package struct PostgresTransaction {
    package let connection: PostgresConnection
    package let deadline: ContinuousClock.Instant
    package let operation: String

    /// Runs `sql` for its effect; answers the rows it changed.
    @discardableResult
    package func run(_ sql: String, _ values: [PostgresValue] = []) throws(StoreError) -> Int {
        try connection.execute(sql, values, operation: operation, deadline: deadline).changed
    }

    /// Every row of `sql`, decoded with `read`.
    package func rows<Row>(
        _ sql: String, _ values: [PostgresValue] = [], read: (PostgresRow) throws(StoreError) -> Row
    ) throws(StoreError) -> [Row] {
        var decoded: [Row] = []
        for row in try connection.execute(sql, values, operation: operation, deadline: deadline).rows {
            decoded.append(try read(row))
        }
        return decoded
    }

    /// The first row of `sql`, decoded with `read`; nil when there is none.
    package func first<Row>(
        _ sql: String, _ values: [PostgresValue] = [], read: (PostgresRow) throws(StoreError) -> Row
    ) throws(StoreError) -> Row? {
        guard let row = try connection.execute(sql, values, operation: operation, deadline: deadline).rows.first else {
            return nil
        }
        return try read(row)
    }

    /// Whether `sql` answers a row.
    package func exists(_ sql: String, _ values: [PostgresValue] = []) throws(StoreError) -> Bool {
        try first(sql, values) { _ throws(StoreError) in true } ?? false
    }
}

extension PostgresPool {
    /// The most attempts of one operation that serialisation failures or deadlocks may cost.
    static let attempts = 16

    /// Runs `body` in one `SERIALIZABLE` transaction, started again from the beginning when PostgreSQL reports a
    /// serialisation failure or a deadlock (as https://www.postgresql.org/docs/15/transaction-iso.html#XACT-SERIALIZABLE
    /// asks of applications), within the operation's deadline. Serialisable transactions behave as if run one after
    /// another, so a check and the write after it see the same database, on every instance.
    package func transaction<Value: Sendable>(
        _ operation: String, timeout: Duration? = nil,
        _ body: @escaping @Sendable (PostgresTransaction) throws(StoreError) -> Value
    ) async throws(StoreError) -> Value {
        try await run(operation, timeout: timeout) { connection, deadline throws(StoreError) -> Value in
            let transaction = PostgresTransaction(connection: connection, deadline: deadline, operation: operation)
            var attempt = 1
            while true {
                do throws(StoreError) {
                    try transaction.run("BEGIN ISOLATION LEVEL SERIALIZABLE")
                    let value = try body(transaction)
                    try transaction.run("COMMIT")
                    return value
                } catch {
                    let retryable = connection.lastFailureIsRetryable
                    if !connection.isBroken { _ = try? transaction.run("ROLLBACK") }
                    guard retryable, attempt < Self.attempts, ContinuousClock.now < deadline else { throw error }
                    attempt += 1
                    // A short random pause, so that two retrying callers do not collide again in step.
                    Thread.sleep(forTimeInterval: Double.random(in: 0.001...0.005) * Double(min(attempt, 8)))
                }
            }
        }
    }
}
