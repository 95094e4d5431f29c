import CSQLite
import Foundation

/// Owns one SQLite connection handle; `sqlite3_close_v2` runs when it goes away.
///
/// Not safe for concurrent use by itself: it is opened `SQLITE_OPEN_NOMUTEX` (SQLite's "multi-thread" mode, one
/// caller at a time per connection) and its owner serializes all access with a mutex. See `SQLiteSessionStore`.
/// Package-visible, with ``SQLiteStatement`` and ``SQLiteMigrations``, so that any store of the package (an accounts
/// store, say) opens its file the same way (``openStore(path:busyTimeout:)``) and keeps its tables beside the session
/// store's.
package final class SQLiteConnection {
    private let database: OpaquePointer
    /// Prepared statements by their SQL, kept for the next call with the same SQL: a store call prepared its
    /// statement anew each time, which cost more than running it. A statement is taken out while lent, so a nested
    /// call with the same SQL prepares its own.
    private var prepared: [String: OpaquePointer] = [:]

    private init(database: OpaquePointer) {
        self.database = database
    }

    // sqlite3_close_v2 only fails for a bad handle; with a statement left unfinalized it would defer the close
    // ("zombie") rather than fail, so the kept statements are finalized first. https://sqlite.org/c3ref/close.html
    deinit {
        for statement in prepared.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(database)
    }

    /// Opens an existing database file read-write; SQLite will not create it (the caller created it 0600).
    package static func open(path: String) throws(StoreError) -> SQLiteConnection {
        var handle: OpaquePointer?
        // EXRESCODE: errors carry extended codes (SQLITE_IOERR_FSYNC, not just SQLITE_IOERR).
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard let handle else {
            throw StoreError(.unavailable, detail: "sqlite3_open_v2 \(path): out of memory")
        }
        // Even a failed open returns a handle that must be closed: the connection's deinit does it.
        let connection = SQLiteConnection(database: handle)
        guard code == SQLITE_OK else {
            throw StoreError.sqlite(code, database: handle, operation: "open \(path)")
        }
        return connection
    }

    /// Sets how long a call waits for another process's lock before failing with `SQLITE_BUSY`.
    package func setBusyTimeout(milliseconds: Int32) throws(StoreError) {
        let code = sqlite3_busy_timeout(database, milliseconds)
        guard code == SQLITE_OK else { throw StoreError.sqlite(code, database: database, operation: "busy timeout") }
    }

    /// Runs SQL without results (one or more statements).
    package func execute(_ sql: String, operation: String) throws(StoreError) {
        let code = sqlite3_exec(database, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw StoreError.sqlite(code, database: database, operation: operation) }
    }

    /// Lends `body` the prepared statement of `sql` (prepared on first use), then resets it and clears its bindings
    /// whatever happens, so that it holds no read transaction and no bound value until its next use.
    package func withStatement<Result>(
        _ sql: String, operation: String, _ body: (SQLiteStatement) throws(StoreError) -> Result
    ) throws(StoreError) -> Result {
        let raw: OpaquePointer
        if let kept = prepared.removeValue(forKey: sql) {
            raw = kept
        } else {
            var fresh: OpaquePointer?
            let code = sqlite3_prepare_v2(database, sql, -1, &fresh, nil)
            guard code == SQLITE_OK, let fresh else {
                throw StoreError.sqlite(code, database: database, operation: "\(operation): prepare")
            }
            raw = fresh
        }
        // sqlite3_reset repeats the last step's error, which `step()` has already turned into a throw
        // (https://sqlite.org/c3ref/reset.html).
        defer {
            sqlite3_reset(raw)
            sqlite3_clear_bindings(raw)
            if prepared[sql] == nil { prepared[sql] = raw } else { sqlite3_finalize(raw) }
        }
        return try body(SQLiteStatement(raw: raw, database: database, operation: operation))
    }

    /// Runs `body` in a write transaction (`BEGIN IMMEDIATE`, so the write lock is taken up front and a
    /// read-then-write cannot fail halfway with `SQLITE_BUSY`); rolls back when anything throws.
    package func inTransaction<Result>(operation: String, _ body: () throws(StoreError) -> Result) throws(StoreError)
        -> Result
    {
        try execute("BEGIN IMMEDIATE", operation: "\(operation): begin")
        do {
            let result = try body()
            try execute("COMMIT", operation: "\(operation): commit")
            return result
        } catch {
            // Some errors (SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM) already rolled the transaction back, and a
            // second ROLLBACK would fail: https://sqlite.org/lang_transaction.html ("Response To Errors").
            if sqlite3_get_autocommit(database) == 0 {
                let code = sqlite3_exec(database, "ROLLBACK", nil, nil, nil)
                if code != SQLITE_OK {
                    let rollback = StoreError.sqlite(code, database: database, operation: "rollback")
                    throw StoreError(error.kind, detail: "\(error.detail); then \(rollback.detail)")
                }
            }
            throw error
        }
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    package var changes: Int { Int(sqlite3_changes(database)) }

    /// Opens the store file at `path` as every SQLite store of the package does: created 0600 if needed
    /// (``StoreFile``), the busy timeout set, WAL journal mode, `synchronous = NORMAL` and `secure_delete`
    /// (docs/ARCHITECTURE.md, `AuthHandlerStore`). The caller then runs its ``SQLiteMigrations``.
    package static func openStore(path: String, busyTimeout: Duration) throws(StoreError) -> SQLiteConnection {
        try StoreFile.prepare(path: path)
        let connection = try SQLiteConnection.open(path: path)
        // Capped at a day before multiplying, so no Duration can overflow the arithmetic.
        let (seconds, attoseconds) = busyTimeout.components
        let milliseconds = max(0, min(seconds, 86_400) * 1000 + attoseconds / 1_000_000_000_000_000)
        try connection.setBusyTimeout(milliseconds: Int32(clamping: milliseconds))
        try connection.configure()
        return connection
    }

    /// Per-file and per-connection settings; the first statement that reads the file, so a file that is not a
    /// database fails here with `SQLITE_NOTADB`.
    private func configure() throws(StoreError) {
        // Persistent in the file; answers the mode in effect, which stays "delete" where WAL is impossible
        // (no shared memory, e.g. some network file systems): https://sqlite.org/pragma.html#pragma_journal_mode
        let mode = try withStatement("PRAGMA journal_mode = WAL", operation: "set WAL journal mode") {
            statement throws(StoreError) in
            guard try statement.step() else { return "" }
            return statement.text(0)
        }
        guard mode.lowercased() == "wal" else {
            throw StoreError(
                .unavailable, detail: "set WAL journal mode: the file system left journal mode \"\(mode)\"")
        }
        // Per connection, not stored in the file. NORMAL in WAL mode: a commit survives a process crash; a power
        // loss may roll back the last commits but never corrupts: https://sqlite.org/pragma.html#pragma_synchronous
        try execute("PRAGMA synchronous = NORMAL", operation: "set synchronous")
        // Deleted rows (consumed verifiers, redeemed credentials) are overwritten with zeros, not left in free pages.
        try execute("PRAGMA secure_delete = ON", operation: "set secure_delete")
    }
}
