import Foundation

/// One owner's tables in a PostgreSQL database, as the steps that made them, versioned in `schema_versions(owner,
/// version)` as ``SQLiteMigrations`` does for a file: forward only, a released step never edited, a database whose
/// version is higher than this build's steps refused.
///
/// Instances starting together do not race: the whole migration is one transaction that first takes
/// `pg_advisory_xact_lock` (the transaction-scoped form of `pg_advisory_lock`, released at its commit or rollback even
/// when the process dies: https://www.postgresql.org/docs/15/explicit-locking.html#ADVISORY-LOCKS) on a key of its own,
/// so the second waits, then finds the version the first wrote and has nothing to do.
package struct PostgresMigrations: Sendable {
    package let owner: String
    package let steps: [String]

    package init(owner: String, steps: [String]) {
        self.owner = owner
        self.steps = steps
    }

    package var currentVersion: Int { steps.count }

    /// The advisory lock's key: a constant of the package ("auth-handler" in ASCII, as a 64-bit number).
    static let lockKey = 0x6175_7468_2d68_616e

    /// Brings the owner's tables to ``currentVersion`` on `connection`, or refuses a newer database; `database` names
    /// it in that message (without a password).
    package func migrate(_ connection: PostgresConnection, database: String, deadline: ContinuousClock.Instant)
        throws(StoreError)
    {
        let operation = "migrate the \(owner) schema"
        try Self.underLock(connection, operation: operation, deadline: deadline) { () throws(StoreError) in
            try connection.execute(
                "CREATE TABLE IF NOT EXISTS schema_versions(owner TEXT NOT NULL PRIMARY KEY, version BIGINT NOT NULL)",
                operation: operation, deadline: deadline)
            let version =
                try connection.execute(
                    "SELECT version FROM schema_versions WHERE owner = $1", [.text(owner)], operation: operation,
                    deadline: deadline
                ).rows.first?.int(0) ?? 0
            guard version <= currentVersion else {
                throw StoreError(
                    .unavailable,
                    detail: "\(database) was written by a newer auth-handler (\(owner) schema v\(version), this binary "
                        + "knows v\(currentVersion)); upgrade the binary, or restore a backup made with pg_dump")
            }
            for next in version..<currentVersion {
                try connection.executeScript(
                    steps[next], operation: "\(operation) to version \(next + 1)", deadline: deadline)
            }
            try connection.execute(
                """
                INSERT INTO schema_versions(owner, version) VALUES ($1, $2)
                ON CONFLICT(owner) DO UPDATE SET version = excluded.version
                """,
                [.text(owner), .int(currentVersion)], operation: operation, deadline: deadline)
        }
    }

    /// Runs `body` on `connection` in one transaction that holds the package's advisory lock, so that instances
    /// starting together take turns (the migrations; the signing key the first instance stores). READ COMMITTED, not
    /// the connection's default (serialisable, ``PostgresSettings/parameters``): that takes the transaction's
    /// snapshot at its first statement, the lock's, before the wait, so the second instance would not see what the
    /// first committed meanwhile (transaction-iso.html#XACT-SERIALIZABLE); read committed takes one per statement
    /// (transaction-iso.html#XACT-READ-COMMITTED). Committed when `body` returns, rolled back when it throws.
    package static func underLock<Value>(
        _ connection: PostgresConnection, operation: String, deadline: ContinuousClock.Instant,
        _ body: () throws(StoreError) -> Value
    ) throws(StoreError) -> Value {
        try connection.execute("BEGIN ISOLATION LEVEL READ COMMITTED", operation: operation, deadline: deadline)
        do throws(StoreError) {
            try connection.execute(
                "SELECT pg_advisory_xact_lock($1)", [.int(lockKey)], operation: operation, deadline: deadline)
            let value = try body()
            try connection.commit(operation: operation, deadline: deadline)
            return value
        } catch {
            _ = try? connection.execute("ROLLBACK", operation: operation, deadline: deadline)
            throw error
        }
    }
}
