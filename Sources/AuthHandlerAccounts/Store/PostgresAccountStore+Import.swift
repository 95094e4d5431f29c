import AuthHandlerStore
import Foundation

/// ``AccountStore/importUsers(_:)`` on PostgreSQL: one serialisable transaction that reads in a few statements which
/// rows are stored and whether a new row's e-mail or identity is taken (`= ANY($1)`, `unnest`), and writes only when no
/// row is refused, a few thousand rows per INSERT (`INSERT … SELECT * FROM unnest($1, $2, …)`), every value an array
/// parameter: 100,000 users are a few dozen statements, not hundreds of thousands of round trips.
extension PostgresAccountStore {
    /// Rows per INSERT.
    static let importChunk = 5000
    /// How long an import may take, its statements' `statement_timeout` included: far beyond one operation's.
    static let importTimeout = Duration.seconds(600)

    package func importUsers(_ batch: [AccountImport]) async throws(StoreError) -> AccountImportResult {
        if let refusal = AccountImport.firstRefusalWithin(batch) { return refusal }
        return try await transaction("import users", timeout: Self.importTimeout) {
            transaction throws(StoreError) -> AccountImportResult in
            // For this transaction only (`set_config(…, true)` is `SET LOCAL`).
            try transaction.run(
                "SELECT set_config('statement_timeout', $1, true)",
                [.text(String(Self.importTimeout.components.seconds * 1000))])
            let stored = Set(
                try transaction.rows(
                    "SELECT local_id FROM account_users WHERE local_id = ANY($1)",
                    [.array(element: .text, batch.map { .text($0.user.localID.value) })]
                ) { row throws(StoreError) in row.text(0) })
            let new = batch.enumerated().filter { !stored.contains($0.element.user.localID.value) }
            if let refusal = try Self.firstTaken(in: new, transaction) { return refusal }
            for start in stride(from: 0, to: new.count, by: Self.importChunk) {
                let chunk = new[start..<min(start + Self.importChunk, new.count)].map(\.element)
                try Self.insertUsers(chunk.map(\.user), transaction)
                try Self.insertIdentities(chunk.flatMap(\.identities), transaction)
            }
            return .imported(inserted: new.count, skipped: batch.count - new.count)
        }
    }

    /// The first new row (in the batch's order) whose normalised e-mail a stored user has (`"email"`) or one of whose
    /// identities is stored (`"identity"`).
    private static func firstTaken(
        in new: [(offset: Int, element: AccountImport)], _ transaction: PostgresTransaction
    ) throws(StoreError) -> AccountImportResult? {
        let emails = Set(
            try transaction.rows(
                "SELECT normalized_email FROM account_users WHERE normalized_email = ANY($1)",
                [.array(element: .text, new.compactMap { $0.element.user.normalizedEmail.map(PostgresValue.text) })]
            ) { row throws(StoreError) in row.text(0) })
        let identities = new.flatMap(\.element.identities)
        let linked = Set(
            try transaction.rows(
                """
                SELECT i.provider_id, i.provider_user_id FROM account_identities AS i
                JOIN unnest($1::text[], $2::text[]) AS n(provider_id, provider_user_id)
                    ON i.provider_id = n.provider_id AND i.provider_user_id = n.provider_user_id
                """,
                [
                    .array(element: .text, identities.map { .text($0.providerID) }),
                    .array(element: .text, identities.map { .text($0.providerUserID) }),
                ]
            ) { row throws(StoreError) in [row.text(0), row.text(1)] })
        for (index, row) in new {
            if let email = row.user.normalizedEmail, emails.contains(email) {
                return .refused(index: index, field: "email")
            }
            if row.identities.contains(where: { linked.contains([$0.providerID, $0.providerUserID]) }) {
                return .refused(index: index, field: "identity")
            }
        }
        return nil
    }

    /// One INSERT of `users`, each column an array parameter.
    private static func insertUsers(_ users: [AccountUser], _ transaction: PostgresTransaction) throws(StoreError) {
        guard !users.isEmpty else { return }
        let rows = users.map(PostgresAccountRows.values(of:))
        let types: [PostgresValue.ElementType] = [
            .text, .text, .text, .bool, .text, .text, .text, .int, .bool, .text, .double, .double, .double, .text,
        ]
        try transaction.run(
            """
            INSERT INTO account_users(\(SQLiteAccountRows.userColumns))
            SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bool[], $5::text[], $6::text[], $7::text[],
                $8::int8[], $9::bool[], $10::text[], $11::float8[], $12::float8[], $13::float8[], $14::text[])
            """,
            types.enumerated().map { column, type in .array(element: type, rows.map { $0[column] }) })
    }

    /// One INSERT of `identities`, each column an array parameter.
    private static func insertIdentities(_ identities: [AccountIdentity], _ transaction: PostgresTransaction)
        throws(StoreError)
    {
        guard !identities.isEmpty else { return }
        try transaction.run(
            """
            INSERT INTO account_identities(\(SQLiteAccountRows.identityColumns))
            SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::float8[])
            """,
            [
                .array(element: .text, identities.map { .text($0.providerID) }),
                .array(element: .text, identities.map { .text($0.providerUserID) }),
                .array(element: .text, identities.map { .text($0.localID.value) }),
                .array(element: .text, identities.map { PostgresValue($0.email) }),
                .array(element: .text, identities.map { PostgresValue($0.displayName) }),
                .array(element: .double, identities.map { PostgresValue($0.createdAt) }),
            ])
    }
}
