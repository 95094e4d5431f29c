import AuthHandlerStore
import Foundation

/// One row of either engine's answer, read by column number from 0: what ``AccountRows`` decodes a record from, so
/// that each record is decoded in one place for SQLite and PostgreSQL alike (the two schemas share their column names
/// and, in ``SQLiteAccountRows``' column lists, their order).
protocol AccountRecordRow {
    func isNull(_ column: Int) -> Bool
    /// The column's text; empty for NULL.
    func text(_ column: Int) -> String
    func int(_ column: Int) -> Int
    /// A boolean column: SQLite's INTEGER 0 or 1, PostgreSQL's `boolean`.
    func flag(_ column: Int) -> Bool
    /// A REAL (SQLite) or `float8` (PostgreSQL) column of Unix seconds.
    func seconds(_ column: Int) -> Double
    /// A BLOB or `bytea` column; empty for NULL.
    func bytes(_ column: Int) -> [UInt8]
}

extension AccountRecordRow {
    func optionalText(_ column: Int) -> String? { isNull(column) ? nil : text(column) }
    func optionalBytes(_ column: Int) -> [UInt8]? { isNull(column) ? nil : bytes(column) }
    func date(_ column: Int) -> Date { Date(timeIntervalSince1970: seconds(column)) }
    func optionalDate(_ column: Int) -> Date? { isNull(column) ? nil : date(column) }
}

/// The current row of a stepped SQLite statement.
extension SQLiteStatement: AccountRecordRow {
    func isNull(_ column: Int) -> Bool { isNull(Int32(column)) }
    func text(_ column: Int) -> String { text(Int32(column)) }
    func int(_ column: Int) -> Int { int(Int32(column)) }
    func flag(_ column: Int) -> Bool { int(Int32(column)) != 0 }
    func seconds(_ column: Int) -> Double { double(Int32(column)) }
    func bytes(_ column: Int) -> [UInt8] { blob(Int32(column)) }
}

/// A PostgreSQL row in binary format.
extension PostgresRow: AccountRecordRow {
    func flag(_ column: Int) -> Bool { bool(column) }
    func seconds(_ column: Int) -> Double { double(column) }
}

/// The decoding of a row into each accounts record, for SELECTs that name ``SQLiteAccountRows``' columns in its order.
enum AccountRows {
    static func user(_ row: some AccountRecordRow) throws(StoreError) -> AccountUser {
        AccountUser(
            localID: try localID(row, 0), email: row.optionalText(1), normalizedEmail: row.optionalText(2),
            emailVerified: row.flag(3), displayName: row.optionalText(4), photoURL: row.optionalText(5),
            passwordHash: row.optionalText(6), passwordVersion: row.int(7), disabled: row.flag(8),
            customClaims: row.optionalText(9), createdAt: row.date(10), lastSignInAt: row.optionalDate(11),
            validSince: row.date(12), legacyPasswordHash: row.optionalText(13))
    }

    static func identity(_ row: some AccountRecordRow) throws(StoreError) -> AccountIdentity {
        AccountIdentity(
            providerID: row.text(0), providerUserID: row.text(1), localID: try localID(row, 2),
            email: row.optionalText(3), displayName: row.optionalText(4), createdAt: row.date(5))
    }

    static func session(_ row: some AccountRecordRow) throws(StoreError) -> AccountSession {
        AccountSession(
            id: row.text(0), localID: try localID(row, 1), signInProvider: row.text(2), signedInAt: row.date(3),
            authTime: row.date(4), lastRefreshAt: row.date(5), revokedAt: row.optionalDate(6),
            cookieBound: row.flag(7))
    }

    static func refreshToken(_ row: some AccountRecordRow) -> RefreshTokenRecord {
        RefreshTokenRecord(
            digest: row.bytes(0), sessionID: row.text(1), issuedAt: row.date(2), firstUsedAt: row.optionalDate(3),
            successorDigest: row.optionalBytes(4), sealedSuccessor: row.optionalBytes(5))
    }

    static func code(_ row: some AccountRecordRow) throws(StoreError) -> OneTimeCodeRecord {
        guard let kind = OneTimeCodeKind(rawValue: row.text(1)) else {
            throw StoreError(.unavailable, detail: "read a one-time code: unknown kind \"\(row.text(1))\" in the store")
        }
        return OneTimeCodeRecord(
            digest: row.bytes(0), kind: kind, localID: try localID(row, 2), email: row.text(3),
            newEmail: row.optionalText(4), passwordVersion: row.int(5), createdAt: row.date(6),
            expiresAt: row.date(7))
    }

    static func pendingCredential(_ row: some AccountRecordRow) throws(StoreError) -> PendingCredentialRecord {
        PendingCredentialRecord(digest: row.bytes(0), localID: try localID(row, 1), expiresAt: row.date(2))
    }

    private static func localID(_ row: some AccountRecordRow, _ column: Int) throws(StoreError) -> LocalID {
        guard let localID = LocalID(row.text(column)) else {
            throw StoreError(.unavailable, detail: "read an accounts record: a malformed localId in the store")
        }
        return localID
    }
}
