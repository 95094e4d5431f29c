import AuthHandlerStore
import Foundation

/// Sessions and their refresh tokens (docs/ACCOUNTS.md "Refresh tokens and sessions").
extension PostgresAccountStore {
    package func insertSession(_ session: AccountSession, firstToken: RefreshTokenRecord) async throws(StoreError) {
        guard firstToken.sessionID == session.id else {
            throw StoreError(.constraint("session"), detail: "insert session: the first token names another session")
        }
        try await transaction("insert session") { transaction throws(StoreError) in
            try Self.requireUser(session.localID, "insert session", transaction)
            if try transaction.exists("SELECT 1 FROM account_sessions WHERE id = $1", [.text(session.id)]) {
                throw StoreError(.conflict, detail: "insert session: a session with this id exists")
            }
            try transaction.run(
                "INSERT INTO account_sessions(\(SQLiteAccountRows.sessionColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                [
                    .text(session.id), .text(session.localID.value), .text(session.signInProvider),
                    PostgresValue(session.signedInAt), PostgresValue(session.authTime),
                    PostgresValue(session.lastRefreshAt), PostgresValue(session.revokedAt), .bool(session.cookieBound),
                ])
            try Self.insertRefreshToken(firstToken, transaction)
        }
    }

    package func session(id: String) async throws(StoreError) -> AccountSession? {
        try await statement("read session") { transaction throws(StoreError) in
            try transaction.first(
                "SELECT \(SQLiteAccountRows.sessionColumns) FROM account_sessions WHERE id = $1", [.text(id)],
                read: AccountRows.session)
        }
    }

    package func revokeSession(id: String, at: Date) async throws(StoreError) -> Bool {
        // One conditional UPDATE (`revoked_at IS NULL` in the statement), whose row count is the answer: it runs alone.
        try await statement("revoke session") { transaction throws(StoreError) in
            try transaction.run(
                "UPDATE account_sessions SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL",
                [.text(id), PostgresValue(at)]) == 1
        }
    }

    package func revokeSessions(of localID: LocalID, except: String?, at: Date) async throws(StoreError) -> Int {
        try await statement("revoke sessions") { transaction throws(StoreError) in
            // One conditional UPDATE, as `revokeSession`. `IS DISTINCT FROM NULL` holds for every id, so no `except`
            // revokes them all.
            try transaction.run(
                """
                UPDATE account_sessions SET revoked_at = $2
                WHERE local_id = $1 AND revoked_at IS NULL AND id IS DISTINCT FROM $3::text
                """, [.text(localID.value), PostgresValue(at), PostgresValue(except)])
        }
    }

    package func bindSessionToCookie(id: String) async throws(StoreError) {
        try await updateSession(
            "UPDATE account_sessions SET cookie_bound = true WHERE id = $1", [.text(id)], operation: "bind session")
    }

    package func liveSessionCount(of localID: LocalID, idleSince: Date, signedInSince: Date) async throws(StoreError)
        -> Int
    {
        try await statement("count live sessions") { transaction throws(StoreError) in
            try transaction.first(
                """
                SELECT count(*) FROM account_sessions AS s JOIN account_users AS u ON u.local_id = s.local_id
                WHERE s.local_id = $1 AND s.revoked_at IS NULL AND s.last_refresh_at >= $2
                    AND s.signed_in_at >= $3 AND s.auth_time >= u.valid_since
                """, [.text(localID.value), PostgresValue(idleSince), PostgresValue(signedInSince)]
            ) { row throws(StoreError) in row.int(0) } ?? 0
        }
    }

    package func setAuthTime(sessionID: String, _ authTime: Date) async throws(StoreError) {
        try await updateSession(
            "UPDATE account_sessions SET auth_time = $2 WHERE id = $1", [.text(sessionID), PostgresValue(authTime)],
            operation: "set auth_time")
    }

    /// Runs an UPDATE of one session; `.notFound` when it changed none. The UPDATE is the whole operation, its row
    /// count the only check, so it runs alone.
    private func updateSession(_ sql: String, _ values: [PostgresValue], operation: String) async throws(StoreError) {
        let changed = try await statement(operation) { transaction throws(StoreError) in
            try transaction.run(sql, values)
        }
        guard changed == 1 else { throw StoreError(.notFound, detail: "\(operation): no session with this id") }
    }

    package func refreshToken(digest: [UInt8]) async throws(StoreError) -> RefreshTokenRecord? {
        try await statement("read refresh token") { transaction throws(StoreError) in
            try Self.refreshToken(digest, transaction)
        }
    }

    package func rotateRefreshToken(digest: [UInt8], successorDigest: [UInt8], sealedSuccessor: [UInt8], at: Date)
        async throws(StoreError) -> RefreshTokenRotation
    {
        let values: [PostgresValue] = [
            .bytes(digest), PostgresValue(at), .bytes(successorDigest), .bytes(sealedSuccessor),
        ]
        // The common case in one statement, run alone as a serialisable transaction: the token is marked used only
        // while it has no successor (the condition is in the UPDATE), and its successor is inserted and its session
        // touched by the same statement (data-modifying WITHs, each run once whether or not it is referenced:
        // https://www.postgresql.org/docs/15/queries-with.html#QUERIES-WITH-MODIFYING).
        // Of two rotations of one token, on one instance or two, one updates the row; the other waits for its lock,
        // fails to serialise, runs again and changes nothing.
        let rotated = try await statement("rotate refresh token") { transaction throws(StoreError) -> Bool in
            try transaction.run(
                """
                WITH used AS (\(Self.markUsed) RETURNING session_id),
                touched AS (UPDATE account_sessions SET last_refresh_at = $2 WHERE id IN (SELECT session_id FROM used))
                INSERT INTO account_refresh_tokens(digest, session_id, issued_at) SELECT $3, session_id, $2 FROM used
                """, values) == 1
        }
        if rotated { return .rotated }
        // The statement changed nothing: the token is unknown or used. One serialisable transaction reads it and its
        // successor (and would rotate a token found unused after all, as the statement does).
        return try await transaction("rotate refresh token") { transaction throws(StoreError) -> RefreshTokenRotation in
            guard let token = try Self.refreshToken(digest, transaction) else {
                throw StoreError(.notFound, detail: "rotate refresh token: no such token")
            }
            if let existing = token.successorDigest {
                let successorUsed = try Self.refreshToken(existing, transaction)?.firstUsedAt != nil
                return .alreadyRotated(token, successorUsed: successorUsed)
            }
            let successor = RefreshTokenRecord(digest: successorDigest, sessionID: token.sessionID, issuedAt: at)
            try Self.insertRefreshToken(successor, transaction)
            try transaction.run(Self.markUsed, values)
            try transaction.run(
                "UPDATE account_sessions SET last_refresh_at = $2 WHERE id = $1",
                [.text(token.sessionID), PostgresValue(at)])
            return .rotated
        }
    }

    /// Marks the token of `$1` used at `$2` with its successor's digest `$3` and sealed successor `$4`, unless it has
    /// a successor.
    static let markUsed = """
        UPDATE account_refresh_tokens SET first_used_at = $2, successor_digest = $3, sealed_successor = $4
        WHERE digest = $1 AND successor_digest IS NULL
        """

    static func refreshToken(_ digest: [UInt8], _ transaction: PostgresTransaction) throws(StoreError)
        -> RefreshTokenRecord?
    {
        try transaction.first(
            "SELECT \(SQLiteAccountRows.refreshTokenColumns) FROM account_refresh_tokens WHERE digest = $1",
            [.bytes(digest)], read: AccountRows.refreshToken)
    }

    /// Inserts a token record; `.conflict` when its digest exists.
    static func insertRefreshToken(_ token: RefreshTokenRecord, _ transaction: PostgresTransaction) throws(StoreError) {
        if try digestExists(token.digest, in: "account_refresh_tokens", transaction) {
            throw StoreError(.conflict, detail: "\(transaction.operation): a refresh token with this digest exists")
        }
        try transaction.run(
            "INSERT INTO account_refresh_tokens(\(SQLiteAccountRows.refreshTokenColumns)) VALUES ($1, $2, $3, $4, $5, $6)",
            [
                .bytes(token.digest), .text(token.sessionID), PostgresValue(token.issuedAt),
                PostgresValue(token.firstUsedAt), PostgresValue(token.successorDigest),
                PostgresValue(token.sealedSuccessor),
            ])
    }
}
