import AuthHandlerStore
import Foundation

/// The accounts store's columns in the order its SELECTs name them, and the decoding of a row into a record; one place
/// per table, so a column added later is added here once.
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

    static func user(_ row: SQLiteStatement) throws(StoreError) -> AccountUser {
        AccountUser(
            localID: try localID(row, 0), email: row.optionalText(1), normalizedEmail: row.optionalText(2),
            emailVerified: row.int(3) != 0, displayName: row.optionalText(4), photoURL: row.optionalText(5),
            passwordHash: row.optionalText(6), passwordVersion: row.int(7), disabled: row.int(8) != 0,
            customClaims: row.optionalText(9), createdAt: row.date(10), lastSignInAt: row.optionalDate(11),
            validSince: row.date(12), legacyPasswordHash: row.optionalText(13))
    }

    static func identity(_ row: SQLiteStatement) throws(StoreError) -> AccountIdentity {
        AccountIdentity(
            providerID: row.text(0), providerUserID: row.text(1), localID: try localID(row, 2),
            email: row.optionalText(3), displayName: row.optionalText(4), createdAt: row.date(5))
    }

    static func session(_ row: SQLiteStatement) throws(StoreError) -> AccountSession {
        AccountSession(
            id: row.text(0), localID: try localID(row, 1), signInProvider: row.text(2), signedInAt: row.date(3),
            authTime: row.date(4), lastRefreshAt: row.date(5), revokedAt: row.optionalDate(6),
            cookieBound: row.int(7) != 0)
    }

    static func refreshToken(_ row: SQLiteStatement) -> RefreshTokenRecord {
        RefreshTokenRecord(
            digest: row.blob(0), sessionID: row.text(1), issuedAt: row.date(2), firstUsedAt: row.optionalDate(3),
            successorDigest: row.optionalBlob(4), sealedSuccessor: row.optionalBlob(5))
    }

    static func code(_ row: SQLiteStatement) throws(StoreError) -> OneTimeCodeRecord {
        guard let kind = OneTimeCodeKind(rawValue: row.text(1)) else {
            throw StoreError(.unavailable, detail: "read a one-time code: unknown kind \"\(row.text(1))\" in the file")
        }
        return OneTimeCodeRecord(
            digest: row.blob(0), kind: kind, localID: try localID(row, 2), email: row.text(3),
            newEmail: row.optionalText(4), passwordVersion: row.int(5), createdAt: row.date(6),
            expiresAt: row.date(7))
    }

    static func pendingCredential(_ row: SQLiteStatement) throws(StoreError) -> PendingCredentialRecord {
        PendingCredentialRecord(digest: row.blob(0), localID: try localID(row, 1), expiresAt: row.date(2))
    }

    private static func localID(_ row: SQLiteStatement, _ column: Int32) throws(StoreError) -> LocalID {
        guard let localID = LocalID(row.text(column)) else {
            throw StoreError(.unavailable, detail: "read an accounts record: a malformed localId in the file")
        }
        return localID
    }
}

extension SQLiteStatement {
    func optionalText(_ column: Int32) -> String? { isNull(column) ? nil : text(column) }

    func optionalBlob(_ column: Int32) -> [UInt8]? { isNull(column) ? nil : blob(column) }

    /// A REAL column of Unix seconds.
    func date(_ column: Int32) -> Date { Date(timeIntervalSince1970: double(column)) }

    func optionalDate(_ column: Int32) -> Date? { isNull(column) ? nil : date(column) }

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
