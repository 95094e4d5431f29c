import AuthHandlerStore
import Foundation

/// Sessions and their refresh tokens (docs/ACCOUNTS.md "Refresh tokens and sessions").
extension SQLiteAccountStore {
    package func insertSession(_ session: AccountSession, firstToken: RefreshTokenRecord) async throws(StoreError) {
        guard firstToken.sessionID == session.id else {
            throw StoreError(.constraint("session"), detail: "insert session: the first token names another session")
        }
        try transaction("insert session") { connection throws(StoreError) in
            try Self.requireUser(session.localID, "insert session", connection)
            let sessionExists = try connection.exists(
                "SELECT 1 FROM account_sessions WHERE id = ?1", operation: "insert session"
            ) { statement throws(StoreError) in try statement.bind(1, text: session.id) }
            if sessionExists { throw StoreError(.conflict, detail: "insert session: a session with this id exists") }
            try connection.run(
                "INSERT INTO account_sessions(\(SQLiteAccountRows.sessionColumns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                operation: "insert session"
            ) { statement throws(StoreError) in
                try statement.bind(1, text: session.id)
                try statement.bind(2, text: session.localID.value)
                try statement.bind(3, text: session.signInProvider)
                try statement.bind(4, date: session.signedInAt)
                try statement.bind(5, date: session.authTime)
                try statement.bind(6, date: session.lastRefreshAt)
                try statement.bind(7, optionalDate: session.revokedAt)
                try statement.bind(8, int: session.cookieBound ? 1 : 0)
            }
            try Self.insertRefreshToken(firstToken, connection, operation: "insert session")
        }
    }

    package func session(id: String) async throws(StoreError) -> AccountSession? {
        try locked { connection throws(StoreError) in
            try connection.firstRow(
                "SELECT \(SQLiteAccountRows.sessionColumns) FROM account_sessions WHERE id = ?1",
                operation: "read session", bind: { statement throws(StoreError) in try statement.bind(1, text: id) },
                read: AccountRows.session)
        }
    }

    package func revokeSession(id: String, at: Date) async throws(StoreError) -> Bool {
        try locked { connection throws(StoreError) in
            try connection.run(
                "UPDATE account_sessions SET revoked_at = ?2 WHERE id = ?1 AND revoked_at IS NULL",
                operation: "revoke session"
            ) { statement throws(StoreError) in
                try statement.bind(1, text: id)
                try statement.bind(2, date: at)
            } == 1
        }
    }

    package func revokeSessions(of localID: LocalID, except: String?, at: Date) async throws(StoreError) -> Int {
        try locked { connection throws(StoreError) in
            // `id IS NOT NULL` holds for every row, so no `except` revokes them all.
            try connection.run(
                """
                UPDATE account_sessions SET revoked_at = ?2
                WHERE local_id = ?1 AND revoked_at IS NULL AND id IS NOT ?3
                """,
                operation: "revoke sessions"
            ) { statement throws(StoreError) in
                try statement.bind(1, text: localID.value)
                try statement.bind(2, date: at)
                try statement.bind(3, optionalText: except)
            }
        }
    }

    package func bindSessionToCookie(id: String) async throws(StoreError) {
        let changed = try locked { connection throws(StoreError) in
            try connection.run("UPDATE account_sessions SET cookie_bound = 1 WHERE id = ?1", operation: "bind session")
            {
                statement throws(StoreError) in try statement.bind(1, text: id)
            }
        }
        guard changed == 1 else { throw StoreError(.notFound, detail: "bind session: no session with this id") }
    }

    package func liveSessionCount(of localID: LocalID, idleSince: Date, signedInSince: Date) async throws(StoreError)
        -> Int
    {
        try locked { connection throws(StoreError) in
            try connection.firstRow(
                """
                SELECT count(*) FROM account_sessions AS s JOIN account_users AS u ON u.local_id = s.local_id
                WHERE s.local_id = ?1 AND s.revoked_at IS NULL AND s.last_refresh_at >= ?2
                    AND s.signed_in_at >= ?3 AND s.auth_time >= u.valid_since
                """,
                operation: "count live sessions",
                bind: { statement throws(StoreError) in
                    try statement.bind(1, text: localID.value)
                    try statement.bind(2, date: idleSince)
                    try statement.bind(3, date: signedInSince)
                }
            ) { row throws(StoreError) in row.int(0) } ?? 0
        }
    }

    package func setAuthTime(sessionID: String, _ authTime: Date) async throws(StoreError) {
        try updateSession(id: sessionID, column: "auth_time", to: authTime, operation: "set auth_time")
    }

    /// Sets one time column of a session (`column` is one of the store's own names); `.notFound` for no session.
    private func updateSession(id: String, column: String, to date: Date, operation: String) throws(StoreError) {
        let changed = try locked { connection throws(StoreError) in
            try connection.run("UPDATE account_sessions SET \(column) = ?2 WHERE id = ?1", operation: operation) {
                statement throws(StoreError) in
                try statement.bind(1, text: id)
                try statement.bind(2, date: date)
            }
        }
        guard changed == 1 else { throw StoreError(.notFound, detail: "\(operation): no session with this id") }
    }

    package func refreshToken(digest: [UInt8]) async throws(StoreError) -> RefreshTokenRecord? {
        try locked { connection throws(StoreError) in try Self.refreshToken(digest, connection) }
    }

    package func rotateRefreshToken(digest: [UInt8], successorDigest: [UInt8], sealedSuccessor: [UInt8], at: Date)
        async throws(StoreError) -> RefreshTokenRotation
    {
        // One transaction: of two rotations of one token, the second reads the successor the first wrote.
        try transaction("rotate refresh token") { connection throws(StoreError) -> RefreshTokenRotation in
            guard let token = try Self.refreshToken(digest, connection) else {
                throw StoreError(.notFound, detail: "rotate refresh token: no such token")
            }
            if let existing = token.successorDigest {
                let successorUsed = try Self.refreshToken(existing, connection)?.firstUsedAt != nil
                return .alreadyRotated(token, successorUsed: successorUsed)
            }
            let successor = RefreshTokenRecord(digest: successorDigest, sessionID: token.sessionID, issuedAt: at)
            try Self.insertRefreshToken(successor, connection, operation: "rotate refresh token")
            try connection.run(
                """
                UPDATE account_refresh_tokens SET first_used_at = ?2, successor_digest = ?3, sealed_successor = ?4
                WHERE digest = ?1
                """,
                operation: "rotate refresh token"
            ) { statement throws(StoreError) in
                try statement.bind(1, blob: digest)
                try statement.bind(2, date: at)
                try statement.bind(3, blob: successorDigest)
                try statement.bind(4, blob: sealedSuccessor)
            }
            try connection.run(
                "UPDATE account_sessions SET last_refresh_at = ?2 WHERE id = ?1", operation: "rotate refresh token"
            ) { statement throws(StoreError) in
                try statement.bind(1, text: token.sessionID)
                try statement.bind(2, date: at)
            }
            return .rotated
        }
    }

    static func refreshToken(_ digest: [UInt8], _ connection: SQLiteConnection) throws(StoreError)
        -> RefreshTokenRecord?
    {
        try connection.firstRow(
            "SELECT \(SQLiteAccountRows.refreshTokenColumns) FROM account_refresh_tokens WHERE digest = ?1",
            operation: "read refresh token",
            bind: { statement throws(StoreError) in try statement.bind(1, blob: digest) }
        ) { row throws(StoreError) in AccountRows.refreshToken(row) }
    }

    /// Inserts a token record; `.conflict` when its digest exists.
    static func insertRefreshToken(_ token: RefreshTokenRecord, _ connection: SQLiteConnection, operation: String)
        throws(StoreError)
    {
        if try digestExists(token.digest, in: "account_refresh_tokens", connection) {
            throw StoreError(.conflict, detail: "\(operation): a refresh token with this digest exists")
        }
        try connection.run(
            "INSERT INTO account_refresh_tokens(\(SQLiteAccountRows.refreshTokenColumns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            operation: operation
        ) { statement throws(StoreError) in
            try statement.bind(1, blob: token.digest)
            try statement.bind(2, text: token.sessionID)
            try statement.bind(3, date: token.issuedAt)
            try statement.bind(4, optionalDate: token.firstUsedAt)
            try statement.bind(5, optionalBlob: token.successorDigest)
            try statement.bind(6, optionalBlob: token.sealedSuccessor)
        }
    }
}
