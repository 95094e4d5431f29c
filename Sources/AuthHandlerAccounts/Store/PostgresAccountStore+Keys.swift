import AuthHandlerStore
import Foundation

/// The keys that instances on one database share when the config names none (docs/ACCOUNTS.md "Keys the database
/// keeps"), in `account_keys` by name, as their callers give them: the state key as drawn, the state key's check and
/// the sealed signing key as ``DatabaseKeys`` makes them. Each call is one transaction on a connection of its own, at
/// start, holding the migrations' advisory lock (``PostgresMigrations/underLock(_:operation:deadline:_:)``), so
/// instances starting together take turns, and what one reads it may write without another writing in between.
extension PostgresAccountStore {
    /// The `state-key` row's name.
    package static let stateKeyName = "state-key"

    /// The key stored as `name`, or `candidate` stored and answered when there is none (the state key, which the
    /// store's callers need before they open it: the accounts' migrations are applied first).
    package static func storedKey(_ name: String, candidate: [UInt8], settings: PostgresSettings, at: Date)
        throws(StoreError) -> [UInt8]
    {
        try withKeyRows(settings: settings, at: at) { rows throws(StoreError) in
            if let stored = try rows.value(name) { return stored }
            try rows.insert(name, candidate)
            return candidate
        }
    }

    /// Runs `body` on the rows of `account_keys` in one transaction under the advisory lock, the accounts'
    /// migrations applied first: every write of `body` lands, or none when it throws.
    package static func withKeyRows<Value>(
        settings: PostgresSettings, at: Date, _ body: (KeyRows) throws(StoreError) -> Value
    ) throws(StoreError) -> Value {
        let operation = "the keys the database keeps"
        // Instances starting together may wait for each other's migrations: as long as those may take.
        let deadline = ContinuousClock.now + settings.statementTimeout * 5
        let connection = try PostgresConnection(parameters: settings.parameters, deadline: deadline)
        try PostgresAccountSchema.accounts.migrate(connection, database: settings.redactedURL, deadline: deadline)
        return try PostgresMigrations.underLock(connection, operation: operation, deadline: deadline) {
            () throws(StoreError) in
            try body(KeyRows(connection: connection, operation: operation, deadline: deadline, at: at))
        }
    }

    /// `account_keys` within ``withKeyRows(settings:at:_:)``'s transaction.
    package struct KeyRows {
        let connection: PostgresConnection
        let operation: String
        let deadline: ContinuousClock.Instant
        let at: Date

        /// The value stored as `name`, or nil.
        package func value(_ name: String) throws(StoreError) -> [UInt8]? {
            try connection.execute(
                "SELECT value FROM account_keys WHERE name = $1", [.text(name)], operation: operation,
                deadline: deadline
            ).rows.first?.bytes(0)
        }

        package func insert(_ name: String, _ value: [UInt8]) throws(StoreError) {
            try connection.execute(
                "INSERT INTO account_keys(name, value, created_at) VALUES ($1, $2, $3)",
                [.text(name), .bytes(value), .double(at.timeIntervalSince1970)], operation: operation,
                deadline: deadline)
        }

        package func update(_ name: String, _ value: [UInt8]) throws(StoreError) {
            try connection.execute(
                "UPDATE account_keys SET value = $2 WHERE name = $1", [.text(name), .bytes(value)],
                operation: operation, deadline: deadline)
        }
    }
}
