import AuthHandlerStore

/// ``AccountStore/importUsers(_:)`` on SQLite: one `BEGIN IMMEDIATE` transaction that first reads (which rows are
/// stored, whether a new row's e-mail or identity is taken) and writes only when no row is refused, with the prepared
/// statements `SQLiteConnection` keeps, so 100,000 rows are a few hundred thousand steps of four statements.
extension SQLiteAccountStore {
    package func importUsers(_ batch: [AccountImport]) async throws(StoreError) -> AccountImportResult {
        if let refusal = AccountImport.firstRefusalWithin(batch) { return refusal }
        return try transaction("import users") { connection throws(StoreError) -> AccountImportResult in
            var new: [AccountImport] = []
            for (index, row) in batch.enumerated() {
                if try Self.userExists(row.user.localID, connection) { continue }
                if let field = try Self.takenField(of: row, connection) {
                    return .refused(index: index, field: field)
                }
                new.append(row)
            }
            for row in new {
                try Self.writeUser(row.user, insert: true, connection)
                for identity in row.identities {
                    try Self.insertIdentity(identity, connection, operation: "import users")
                }
            }
            return .imported(inserted: new.count, skipped: batch.count - new.count)
        }
    }

    /// `"email"` or `"identity"` when a stored user has the new row's normalised e-mail or one of its identities.
    private static func takenField(of row: AccountImport, _ connection: SQLiteConnection) throws(StoreError) -> String?
    {
        if let email = row.user.normalizedEmail {
            let taken = try connection.exists(
                "SELECT 1 FROM account_users WHERE normalized_email = ?1", operation: "import users"
            ) { statement throws(StoreError) in try statement.bind(1, text: email) }
            if taken { return "email" }
        }
        for identity in row.identities {
            let taken = try connection.exists(
                "SELECT 1 FROM account_identities WHERE provider_id = ?1 AND provider_user_id = ?2",
                operation: "import users"
            ) { statement throws(StoreError) in
                try statement.bind(1, text: identity.providerID)
                try statement.bind(2, text: identity.providerUserID)
            }
            if taken { return "identity" }
        }
        return nil
    }
}
