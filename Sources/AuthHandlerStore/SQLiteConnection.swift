import CSQLite
import Foundation

/// Owns one SQLite connection handle; `sqlite3_close_v2` runs when it goes away.
///
/// Not safe for concurrent use by itself: it is opened `SQLITE_OPEN_NOMUTEX` (SQLite's "multi-thread" mode, one
/// caller at a time per connection) and its owner serializes all access with a mutex. See `SQLiteSessionStore`.
final class SQLiteConnection {
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
    static func open(path: String) throws(StoreError) -> SQLiteConnection {
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
    func setBusyTimeout(milliseconds: Int32) throws(StoreError) {
        let code = sqlite3_busy_timeout(database, milliseconds)
        guard code == SQLITE_OK else { throw StoreError.sqlite(code, database: database, operation: "busy timeout") }
    }

    /// Runs SQL without results (one or more statements).
    func execute(_ sql: String, operation: String) throws(StoreError) {
        let code = sqlite3_exec(database, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw StoreError.sqlite(code, database: database, operation: operation) }
    }

    /// Lends `body` the prepared statement of `sql` (prepared on first use), then resets it and clears its bindings
    /// whatever happens, so that it holds no read transaction and no bound value until its next use.
    func withStatement<Result>(
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
    func inTransaction<Result>(operation: String, _ body: () throws(StoreError) -> Result) throws(StoreError) -> Result
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
    var changes: Int { Int(sqlite3_changes(database)) }
}
