import CSQLite

extension StoreError {
    /// A failed SQLite call as `.unavailable`, with the operation, `sqlite3_errmsg` and the extended result code.
    ///
    /// Every SQLite failure means the store cannot serve this request: the expected ones are disk and file
    /// errors (`SQLITE_FULL`, `SQLITE_IOERR_*`, `SQLITE_CORRUPT`, `SQLITE_NOTADB`, `SQLITE_CANTOPEN`) and
    /// `SQLITE_BUSY` after the busy timeout; anything else is a bug, and still not the caller's fault.
    /// SQLite's messages name tables and columns, never bound values, so no key or payload can leak here.
    static func sqlite(_ code: Int32, database: OpaquePointer?, operation: String) -> StoreError {
        let message = database.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
        let codeName = sqlite3_errstr(code).map { String(cString: $0) } ?? "unknown error"
        var detail = "\(operation): \(message ?? codeName) (SQLite result code \(code)"
        if let message, message != codeName { detail += ", \(codeName)" }
        detail += ")"
        return StoreError(.unavailable, detail: detail)
    }
}
