import CSQLite
import CSQLiteShims

/// A prepared statement lent to the closure of `SQLiteConnection.withStatement`; it must not outlive that call,
/// which resets it. Package-visible, as the connection is, for every SQLite store of the package.
package struct SQLiteStatement {
    let raw: OpaquePointer
    let database: OpaquePointer
    /// What the statement does, for error messages (never a bound value).
    let operation: String

    /// Binds bytes as a BLOB, copied by SQLite (`SQLITE_TRANSIENT`); an empty array is a zero-length BLOB.
    package func bind(_ index: Int32, blob: [UInt8]) throws(StoreError) {
        guard blob.count <= Int(Int32.max) else {
            throw StoreError(.unavailable, detail: "\(operation): a value of \(blob.count) bytes is too large")
        }
        let code: Int32
        if blob.isEmpty {
            // A NULL pointer would bind SQL NULL, not an empty BLOB: https://sqlite.org/c3ref/bind_blob.html
            code = sqlite3_bind_zeroblob(raw, index, 0)
        } else {
            code = blob.withUnsafeBytes { bytes in
                shim_sqlite3_bind_blob_transient(raw, index, bytes.baseAddress, Int32(bytes.count))
            }
        }
        try check(code, "bind")
    }

    /// Binds UTF-8 text, copied by SQLite (`SQLITE_TRANSIENT`).
    package func bind(_ index: Int32, text: String) throws(StoreError) {
        let bytes = Array(text.utf8)
        guard bytes.count <= Int(Int32.max) else {
            throw StoreError(.unavailable, detail: "\(operation): a text of \(bytes.count) bytes is too large")
        }
        // withCString's pointer is never NULL, so an empty string binds '' rather than NULL; the length excludes the
        // terminator (https://sqlite.org/c3ref/bind_blob.html).
        let code = text.withCString { characters in
            shim_sqlite3_bind_text_transient(raw, index, characters, Int32(bytes.count))
        }
        try check(code, "bind")
    }

    /// Binds a REAL.
    package func bind(_ index: Int32, double: Double) throws(StoreError) {
        try check(sqlite3_bind_double(raw, index, double), "bind")
    }

    /// Binds an INTEGER.
    package func bind(_ index: Int32, int: Int) throws(StoreError) {
        try check(sqlite3_bind_int64(raw, index, sqlite3_int64(int)), "bind")
    }

    /// Binds SQL NULL.
    package func bindNull(_ index: Int32) throws(StoreError) {
        try check(sqlite3_bind_null(raw, index), "bind")
    }

    /// Advances the statement: true when a row is available, false when it has run to completion.
    package func step() throws(StoreError) -> Bool {
        let code = sqlite3_step(raw)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw StoreError.sqlite(code, database: database, operation: operation)
        }
    }

    /// Steps to completion, discarding rows; this is where an autocommit write commits and reports failure.
    package func finish() throws(StoreError) {
        while try step() {}
    }

    /// A BLOB column of the current row; empty for a zero-length BLOB or NULL.
    package func blob(_ column: Int32) -> [UInt8] {
        // Pointer first, then size: https://sqlite.org/c3ref/column_blob.html ("safest policy").
        guard let bytes = sqlite3_column_blob(raw, column) else { return [] }
        let count = Int(sqlite3_column_bytes(raw, column))
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    /// A REAL column of the current row.
    package func double(_ column: Int32) -> Double {
        sqlite3_column_double(raw, column)
    }

    /// An INTEGER column of the current row.
    package func int(_ column: Int32) -> Int {
        Int(sqlite3_column_int64(raw, column))
    }

    /// Whether a column of the current row is NULL, which ``blob(_:)``, ``text(_:)`` and the numbers cannot tell.
    package func isNull(_ column: Int32) -> Bool {
        sqlite3_column_type(raw, column) == SQLITE_NULL
    }

    /// A TEXT column of the current row; empty for NULL.
    package func text(_ column: Int32) -> String {
        sqlite3_column_text(raw, column).map { String(cString: $0) } ?? ""
    }

    private func check(_ code: Int32, _ step: String) throws(StoreError) {
        guard code == SQLITE_OK else {
            throw StoreError.sqlite(code, database: database, operation: "\(operation): \(step)")
        }
    }
}
