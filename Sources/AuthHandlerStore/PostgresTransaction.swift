import Foundation

/// A serialisable transaction on a pooled connection: what a PostgreSQL store's operation runs its statements in —
/// an explicit one (``PostgresPool/transaction(_:timeout:_:)``), or the implicit one of a lone statement
/// (``PostgresPool/statement(_:timeout:_:)``), which allows exactly one statement.
package struct PostgresTransaction {
    package let connection: PostgresConnection
    package let deadline: ContinuousClock.Instant
    package let operation: String
    /// Set for a lone statement: taken by its statement, so that a second is refused before it runs (it would be an
    /// implicit transaction of its own, not one with the first).
    private let lone: LoneStatement?

    init(connection: PostgresConnection, deadline: ContinuousClock.Instant, operation: String, lone: Bool) {
        self.connection = connection
        self.deadline = deadline
        self.operation = operation
        self.lone = lone ? LoneStatement() : nil
    }

    /// Runs `sql` for its effect; answers the rows it changed.
    @discardableResult
    package func run(_ sql: String, _ values: [PostgresValue] = []) throws(StoreError) -> Int {
        try execute(sql, values).changed
    }

    /// Ends the transaction: throws unless PostgreSQL committed it (``PostgresConnection/commit(operation:deadline:)``).
    func commit() throws(StoreError) {
        try connection.commit(operation: operation, deadline: deadline)
    }

    /// Every row of `sql`, decoded with `read`.
    package func rows<Row>(
        _ sql: String, _ values: [PostgresValue] = [], read: (PostgresRow) throws(StoreError) -> Row
    ) throws(StoreError) -> [Row] {
        var decoded: [Row] = []
        for row in try execute(sql, values).rows {
            decoded.append(try read(row))
        }
        return decoded
    }

    /// The first row of `sql`, decoded with `read`; nil when there is none.
    package func first<Row>(
        _ sql: String, _ values: [PostgresValue] = [], read: (PostgresRow) throws(StoreError) -> Row
    ) throws(StoreError) -> Row? {
        guard let row = try execute(sql, values).rows.first else { return nil }
        return try read(row)
    }

    /// Whether `sql` answers a row.
    package func exists(_ sql: String, _ values: [PostgresValue] = []) throws(StoreError) -> Bool {
        try first(sql, values) { _ throws(StoreError) in true } ?? false
    }

    private func execute(_ sql: String, _ values: [PostgresValue]) throws(StoreError) -> PostgresResult {
        try lone?.take(operation)
        return try connection.execute(sql, values, operation: operation, deadline: deadline)
    }
}

/// The one statement a lone statement's ``PostgresTransaction`` allows.
private final class LoneStatement {
    private var taken = false

    func take(_ operation: String) throws(StoreError) {
        guard !taken else {
            throw StoreError(.unavailable, detail: "\(operation): a second statement outside a transaction, refused")
        }
        taken = true
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
            let transaction = PostgresTransaction(
                connection: connection, deadline: deadline, operation: operation, lone: false)
            return try Self.retrying(until: deadline) { () throws(Failure) -> Value in
                do throws(StoreError) {
                    try transaction.run("BEGIN ISOLATION LEVEL SERIALIZABLE")
                    let value = try body(transaction)
                    try transaction.commit()
                    return value
                } catch {
                    let retryable = connection.lastFailureIsRetryable
                    if !connection.isBroken { _ = try? transaction.run("ROLLBACK") }
                    throw Failure(error: error, retryable: retryable)
                }
            }
        }
    }

    /// Runs the one statement of `body` alone, without `BEGIN` and `COMMIT`: one round trip, not three. Without
    /// `BEGIN`, "each statement is executed in its own transaction and a commit is implicitly performed at the end of
    /// the statement" (https://www.postgresql.org/docs/15/sql-begin.html), and the pool's connections set
    /// `default_transaction_isolation`, "the default isolation level of each new transaction", to `serializable`
    /// (https://www.postgresql.org/docs/15/runtime-config-client.html#GUC-DEFAULT-TRANSACTION-ISOLATION;
    /// ``PostgresSettings/parameters``, checked on each new connection): the statement is a serialisable transaction
    /// of its own, as in ``transaction(_:timeout:_:)``, started again on the same failures within the same deadline.
    /// Only for an operation that is exactly one statement: `body` may run one, a second is refused before it runs.
    package func statement<Value: Sendable>(
        _ operation: String, timeout: Duration? = nil,
        _ body: @escaping @Sendable (PostgresTransaction) throws(StoreError) -> Value
    ) async throws(StoreError) -> Value {
        try await run(operation, timeout: timeout) { connection, deadline throws(StoreError) -> Value in
            // The pool hands out connections outside any transaction block (`PostgresWorkerSlot.checkIn`), where the
            // statement commits on its own.
            return try Self.retrying(until: deadline) { () throws(Failure) -> Value in
                do throws(StoreError) {
                    return try body(
                        PostgresTransaction(
                            connection: connection, deadline: deadline, operation: operation, lone: true))
                } catch {
                    // Nothing to roll back: PostgreSQL rolled the failed implicit transaction back itself.
                    throw Failure(error: error, retryable: connection.lastFailureIsRetryable)
                }
            }
        }
    }

    /// An attempt's error, and whether another attempt may mend it (a serialisation failure or a deadlock).
    private struct Failure: Error {
        let error: StoreError
        let retryable: Bool
    }

    /// Runs `attempt` again while it fails retryably, up to ``attempts`` times and while `deadline` has not passed.
    private static func retrying<Value>(
        until deadline: ContinuousClock.Instant,
        _ attempt: () throws(Failure) -> Value
    ) throws(StoreError) -> Value {
        var attempts = 1
        while true {
            do throws(Failure) {
                return try attempt()
            } catch {
                guard error.retryable, attempts < Self.attempts, ContinuousClock.now < deadline else {
                    throw error.error
                }
                attempts += 1
                // A short random pause, so that two retrying callers do not collide again in step.
                Thread.sleep(forTimeInterval: Double.random(in: 0.001...0.005) * Double(min(attempts, 8)))
            }
        }
    }
}
