/// The session store's tables and their migrations: the owner `sessions` of a store file (``SQLiteMigrations``).
enum SQLiteSchema {
    /// The session store's migrations, its version kept in `schema_versions` and, as before per-owner versions, in
    /// `PRAGMA user_version`.
    static let sessions = SQLiteMigrations(owner: "sessions", steps: migrations, keptInUserVersion: true)

    /// The version this build writes; a file with a higher one came from a newer auth-handler.
    static var currentVersion: Int { sessions.currentVersion }

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
        // Version 4 (device sign-in's records in a store protocol of their own, `DeviceStore`, HTTP-API.md §3.9):
        // its sealed records by kind (`grant`, `request`, `decision`), and the decisions that let a user code be
        // answered once. Nothing earlier changes, so a version 2 or 3 file keeps its rows; device records a version 3
        // process kept among the results expire there within minutes and go with the next sweep.
        """
        CREATE TABLE device_records(
            kind TEXT NOT NULL,
            key_hash BLOB NOT NULL,
            payload BLOB NOT NULL,
            expires_at REAL NOT NULL,
            PRIMARY KEY(kind, key_hash)
        );
        CREATE INDEX device_records_expires_at ON device_records(expires_at);
        CREATE TABLE device_decisions(
            key_hash BLOB NOT NULL PRIMARY KEY,
            expires_at REAL NOT NULL
        );
        CREATE INDEX device_decisions_expires_at ON device_decisions(expires_at);
        """,
    ]
}
