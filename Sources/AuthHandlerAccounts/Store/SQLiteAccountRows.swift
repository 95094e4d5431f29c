import AuthHandlerStore
import Foundation

/// The accounts store's columns in the order its SELECTs name them (both engines'), one place per table, so a column
/// added later is added here once (``AccountRows`` decodes them, from either engine's rows).
enum SQLiteAccountRows {
    static let userColumns = """
        local_id, email, normalized_email, email_verified, display_name, photo_url, password_hash, password_version, \
        disabled, custom_claims, created_at, last_sign_in_at, valid_since, legacy_password_hash
        """
    static let identityColumns = "provider_id, provider_user_id, local_id, email, display_name, created_at"
    static let sessionColumns =
        "id, local_id, sign_in_provider, signed_in_at, auth_time, last_refresh_at, revoked_at, cookie_bound"
    static let refreshTokenColumns =
        "digest, session_id, issued_at, first_used_at, successor_digest, sealed_successor"
    static let codeColumns = "digest, kind, local_id, email, new_email, password_version, created_at, expires_at"
    static let pendingCredentialColumns = "digest, local_id, expires_at"
}

extension SQLiteStatement {
    func bind(_ index: Int32, optionalText value: String?) throws(StoreError) {
        if let value { try bind(index, text: value) } else { try bindNull(index) }
    }

    func bind(_ index: Int32, optionalBlob value: [UInt8]?) throws(StoreError) {
        if let value { try bind(index, blob: value) } else { try bindNull(index) }
    }

    func bind(_ index: Int32, date: Date) throws(StoreError) {
        try bind(index, double: date.timeIntervalSince1970)
    }

    func bind(_ index: Int32, optionalDate value: Date?) throws(StoreError) {
        if let value { try bind(index, date: value) } else { try bindNull(index) }
    }

    func bind(_ index: Int32, bool: Bool) throws(StoreError) {
        try bind(index, int: bool ? 1 : 0)
    }
}

extension SQLiteConnection {
    /// Runs `sql` with `bind` for its effect; answers the rows it changed.
    @discardableResult
    func run(
        _ sql: String, operation: String, bind: (SQLiteStatement) throws(StoreError) -> Void
    ) throws(StoreError) -> Int {
        try withStatement(sql, operation: operation) { statement throws(StoreError) in
            try bind(statement)
            try statement.finish()
        }
        return changes
    }

    /// Runs `sql` with `bind` and decodes every row with `read`.
    func rows<Row>(
        _ sql: String, operation: String, bind: (SQLiteStatement) throws(StoreError) -> Void,
        read: (SQLiteStatement) throws(StoreError) -> Row
    ) throws(StoreError) -> [Row] {
        try withStatement(sql, operation: operation) { statement throws(StoreError) -> [Row] in
            try bind(statement)
            var rows: [Row] = []
            while try statement.step() { rows.append(try read(statement)) }
            return rows
        }
    }

    /// The first row of `sql`, decoded with `read`; nil when there is none.
    func firstRow<Row>(
        _ sql: String, operation: String, bind: (SQLiteStatement) throws(StoreError) -> Void,
        read: (SQLiteStatement) throws(StoreError) -> Row
    ) throws(StoreError) -> Row? {
        try withStatement(sql, operation: operation) { statement throws(StoreError) -> Row? in
            try bind(statement)
            guard try statement.step() else { return nil }
            let row = try read(statement)
            // Stepped to the end, so that a DELETE … RETURNING completes and reports its errors
            // (https://sqlite.org/lang_returning.html).
            try statement.finish()
            return row
        }
    }

    /// Whether `sql` with `bind` answers a row.
    func exists(
        _ sql: String, operation: String, bind: (SQLiteStatement) throws(StoreError) -> Void
    ) throws(StoreError) -> Bool {
        try firstRow(sql, operation: operation, bind: bind) { _ throws(StoreError) in true } ?? false
    }
}
