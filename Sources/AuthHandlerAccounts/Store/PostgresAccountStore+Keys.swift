import AuthHandlerStore
import Foundation

/// The keys that instances on one database share when the config names none (docs/ACCOUNTS.md "Keys the database
/// keeps"), in `account_keys` by name, as their callers give them: the state key as drawn, the signing key as
/// ``SharedSigningKey`` sealed it. Each call is one transaction on a connection of its own, at start, holding the
/// migrations' advisory lock (``PostgresMigrations/underLock(_:operation:deadline:_:)``), so instances starting
/// together take turns and the first one's key is every one's.
extension PostgresAccountStore {
    /// The `state-key` row's name.
    package static let stateKeyName = "state-key"
    /// The row that tells which state key the instances seal with (``StateKeyCheck``).
    package static let stateKeyCheckName = "state-key-check"

    /// The key stored as `name`, or `candidate` stored and answered when there is none.
    package func storedKey(_ name: String, candidate: [UInt8]) throws(StoreError) -> [UInt8] {
        try Self.storedKey(name, candidate: candidate, settings: settings, at: now())
    }

    /// ``storedKey(_:candidate:)`` before a store is open (the state key, which the store's callers need first): the
    /// accounts' migrations are applied first.
    package static func storedKey(_ name: String, candidate: [UInt8], settings: PostgresSettings, at: Date)
        throws(StoreError) -> [UInt8]
    {
        try locked("read or store the shared \(name)", settings, migrating: true) {
            connection, operation, deadline throws(StoreError) in
            try connection.execute(
                "INSERT INTO account_keys(name, value, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING",
                [.text(name), .bytes(candidate), .double(at.timeIntervalSince1970)], operation: operation,
                deadline: deadline)
            let stored = try connection.execute(
                "SELECT value FROM account_keys WHERE name = $1", [.text(name)], operation: operation,
                deadline: deadline)
            guard let row = stored.rows.first else {
                throw StoreError(.unavailable, detail: "\(operation): the key was stored and then not found")
            }
            return row.bytes(0)
        }
    }

    /// Stores `new` as `name` in place of `old` (the signing key sealed under the current state key, after it was
    /// opened with a previous one). Nothing changes when another instance replaced it first.
    package func replaceStoredKey(_ name: String, _ old: [UInt8], with new: [UInt8]) throws(StoreError) {
        try Self.replaceStoredKey(name, old, with: new, settings: settings)
    }

    /// ``replaceStoredKey(_:_:with:)`` without an open store (a reload that keeps the running one).
    package static func replaceStoredKey(_ name: String, _ old: [UInt8], with new: [UInt8], settings: PostgresSettings)
        throws(StoreError)
    {
        try locked("replace the shared \(name)", settings, migrating: false) {
            connection, operation, deadline throws(StoreError) in
            try connection.execute(
                "UPDATE account_keys SET value = $3 WHERE name = $1 AND value = $2",
                [.text(name), .bytes(old), .bytes(new)], operation: operation, deadline: deadline)
        }
    }

    private static func locked<Value>(
        _ operation: String, _ settings: PostgresSettings, migrating: Bool,
        _ body: (PostgresConnection, String, ContinuousClock.Instant) throws(StoreError) -> Value
    ) throws(StoreError) -> Value {
        // Instances starting together may wait for each other's migrations: as long as those may take.
        let deadline = ContinuousClock.now + settings.statementTimeout * 5
        let connection = try PostgresConnection(parameters: settings.parameters, deadline: deadline)
        if migrating {
            try PostgresAccountSchema.accounts.migrate(connection, database: settings.redactedURL, deadline: deadline)
        }
        return try PostgresMigrations.underLock(connection, operation: operation, deadline: deadline) {
            () throws(StoreError) in try body(connection, operation, deadline)
        }
    }
}
