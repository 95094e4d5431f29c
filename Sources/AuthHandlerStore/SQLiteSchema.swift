/// The SQLite store's tables and their migrations, versioned by `PRAGMA user_version`.
enum SQLiteSchema {
    /// The version this build writes; a file with a higher one came from a newer auth-handler.
    static let currentVersion = 3

    /// Migrations by the version they produce; `migrations[0]` turns an empty file into version 1.
    ///
    /// Rowid tables with `NOT NULL` spelled out: in a rowid table `PRIMARY KEY` alone allows NULL
    /// (https://sqlite.org/lang_createtable.html#the_primary_key). Keys are SHA-256 digests, times are Unix
    /// seconds. The `expires_at` indexes serve `sweep`.
    static let migrations: [String] = [
        """
        CREATE TABLE pending(
            key_hash BLOB NOT NULL PRIMARY KEY,
            payload BLOB NOT NULL,
            expires_at REAL NOT NULL
        );
        CREATE INDEX pending_expires_at ON pending(expires_at);
        CREATE TABLE results(
            code_hash BLOB NOT NULL PRIMARY KEY,
            payload BLOB NOT NULL,
            expires_at REAL NOT NULL,
            claimed_until REAL
        );
        CREATE INDEX results_expires_at ON results(expires_at);
        """,
        // Version 2 (browser-bound sign-ins, HTTP-API.md §3.1): pending sign-ins live sealed in the browser's cookie,
        // so the pending table goes (its rows held PKCE verifiers and nonces in clear); used states are recorded
        // instead. Results are sealed under their code from now on, so rows written in clear by version 1 are dropped.
        """
        DROP TABLE pending;
        DELETE FROM results;
        CREATE TABLE used_states(
            state_hash BLOB NOT NULL PRIMARY KEY,
            expires_at REAL NOT NULL
        );
        CREATE INDEX used_states_expires_at ON used_states(expires_at);
        """,
        // Version 3 (the wrong-code limit of device sign-in, HTTP-API.md §3.9, shared by every process on the file):
        // counters in fixed windows, `CounterStore`. Nothing earlier changes, so a version 2 file keeps its rows.
        """
        CREATE TABLE counters(
            key_hash BLOB NOT NULL PRIMARY KEY,
            count INTEGER NOT NULL,
            expires_at REAL NOT NULL
        );
        CREATE INDEX counters_expires_at ON counters(expires_at);
        """,
    ]

    /// Brings the file to `currentVersion` in one transaction; refuses a file from a newer version.
    static func migrate(_ connection: SQLiteConnection) throws(StoreError) {
        try connection.inTransaction(operation: "migrate schema") { () throws(StoreError) in
            let version = try connection.withStatement("PRAGMA user_version", operation: "read schema version") {
                statement throws(StoreError) in
                guard try statement.step() else { return 0 }
                return statement.int(0)
            }
            guard version <= currentVersion else {
                throw StoreError(
                    .unavailable,
                    detail: "the file has schema version \(version), newer than this auth-handler's "
                        + "\(currentVersion); run the newer version or point store.path at another file")
            }
            guard version < currentVersion else { return }
            for next in version..<currentVersion {
                try connection.execute(migrations[next], operation: "migrate schema to version \(next + 1)")
            }
            // PRAGMA takes no bound parameters; the value is our own integer.
            try connection.execute("PRAGMA user_version = \(currentVersion)", operation: "write schema version")
        }
    }
}
