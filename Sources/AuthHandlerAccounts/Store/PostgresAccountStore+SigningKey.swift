import AuthHandlerStore
import Foundation

/// The ID-token signing key that instances on one database share when the config names none (docs/ACCOUNTS.md "The
/// signing key on PostgreSQL"), kept in `account_signing_key` as ``SharedSigningKey`` sealed it: this store never sees
/// the key itself. Each call is one transaction on a connection of its own, at start, holding the migrations' advisory
/// lock (``PostgresMigrations/underLock(_:operation:deadline:_:)``), so instances starting together take turns.
extension PostgresAccountStore {
    /// The stored sealed key, or `candidate` stored and answered when there is none: the first instance's candidate
    /// is the key of every instance.
    package func sharedSigningKey(candidate: [UInt8]) throws(StoreError) -> [UInt8] {
        try locked("read or store the shared signing key") { connection, operation, deadline throws(StoreError) in
            try connection.execute(
                """
                INSERT INTO account_signing_key(id, sealed, created_at) VALUES (1, $1, $2)
                ON CONFLICT (id) DO NOTHING
                """,
                [.bytes(candidate), .double(now().timeIntervalSince1970)], operation: operation, deadline: deadline)
            let stored = try connection.execute(
                "SELECT sealed FROM account_signing_key WHERE id = 1", operation: operation, deadline: deadline)
            guard let row = stored.rows.first else {
                throw StoreError(.unavailable, detail: "\(operation): the key was stored and then not found")
            }
            return row.bytes(0)
        }
    }

    /// Stores `resealed` in place of `sealed`: the same key sealed under the current state key, after it was opened
    /// with a previous one. Nothing changes when another instance replaced it first.
    package func resealSharedSigningKey(_ sealed: [UInt8], as resealed: [UInt8]) throws(StoreError) {
        try locked("reseal the shared signing key") { connection, operation, deadline throws(StoreError) in
            try connection.execute(
                "UPDATE account_signing_key SET sealed = $2 WHERE id = 1 AND sealed = $1",
                [.bytes(sealed), .bytes(resealed)], operation: operation, deadline: deadline)
        }
    }

    private func locked<Value>(
        _ operation: String,
        _ body: (PostgresConnection, String, ContinuousClock.Instant) throws(StoreError) -> Value
    ) throws(StoreError) -> Value {
        // Instances starting together may wait for each other's migrations: as long as those may take.
        let deadline = ContinuousClock.now + settings.statementTimeout * 5
        let connection = try PostgresConnection(parameters: settings.parameters, deadline: deadline)
        return try PostgresMigrations.underLock(connection, operation: operation, deadline: deadline) {
            () throws(StoreError) in try body(connection, operation, deadline)
        }
    }
}
