/// The tables one owner keeps in a store's SQLite file, as the steps that made them, versioned per owner so that
/// several stores of the package share one file without touching each other's migrations: the session store is the
/// owner `sessions` (``SQLiteSchema/sessions``); an accounts store adds `SQLiteMigrations(owner: "accounts", steps:
/// [...])` and runs it on the same file (docs/ARCHITECTURE.md, `AuthHandlerStore`).
///
/// Each owner's version is a row of `schema_versions(owner, version)`: the number of its steps applied. Migrations
/// only go forward: a step once released is never edited, a change is a new step, and a file whose version for an
/// owner is higher than this build's steps is refused (it came from a newer auth-handler).
///
/// Before per-owner versions the session store's version was the file's `PRAGMA user_version`
/// (https://sqlite.org/pragma.html#pragma_user_version). The owner `sessions` still reads it when it has no row and
/// still writes it, so that a file from an earlier release (version 2 or 3) migrates from where it is, and an earlier
/// release, which reads only `user_version`, refuses a file this one has moved on.
package struct SQLiteMigrations: Sendable {
    /// The owner's name, the key of its row in `schema_versions`.
    package let owner: String
    /// Migrations by the version they produce: `steps[0]` turns a file without the owner's tables into version 1.
    package let steps: [String]
    /// Whether the owner's version was `PRAGMA user_version` before `schema_versions` (the session store's only).
    let keptInUserVersion: Bool

    /// An owner's migrations, versioned in `schema_versions` only.
    package init(owner: String, steps: [String]) {
        self.init(owner: owner, steps: steps, keptInUserVersion: false)
    }

    init(owner: String, steps: [String], keptInUserVersion: Bool) {
        self.owner = owner
        self.steps = steps
        self.keptInUserVersion = keptInUserVersion
    }

    /// The version this build writes: the number of steps.
    package var currentVersion: Int { steps.count }

    /// Brings the owner's tables to ``currentVersion`` in one transaction, with the version recorded in it; refuses a
    /// file from a newer version. Other owners' tables and versions are left as they are.
    ///
    /// - Parameter file: the file's path, for the message that refuses a newer file; without it the message says
    ///   "the file".
    package func migrate(_ connection: SQLiteConnection, file: String? = nil) throws(StoreError) {
        try connection.inTransaction(operation: "migrate the \(owner) schema") { () throws(StoreError) in
            try connection.execute(
                """
                CREATE TABLE IF NOT EXISTS schema_versions(
                    owner TEXT NOT NULL PRIMARY KEY,
                    version INTEGER NOT NULL
                )
                """, operation: "create schema_versions")
            let version = try recordedVersion(connection)
            guard version <= currentVersion else {
                guard let file else {
                    throw StoreError(
                        .unavailable,
                        detail: "the file has \(owner) schema version \(version), newer than this auth-handler's "
                            + "\(currentVersion); run the newer version or point store.path at another file")
                }
                throw StoreError(
                    .unavailable,
                    detail: "\(file) was written by a newer auth-handler (\(owner) schema v\(version), this binary "
                        + "knows v\(currentVersion)); upgrade the binary or restore a backup")
            }
            guard version < currentVersion else { return }
            for next in version..<currentVersion {
                try connection.execute(steps[next], operation: "migrate the \(owner) schema to version \(next + 1)")
            }
            try connection.withStatement(
                """
                INSERT INTO schema_versions(owner, version) VALUES (?1, ?2)
                ON CONFLICT(owner) DO UPDATE SET version = excluded.version
                """,
                operation: "write the \(owner) schema version"
            ) { statement throws(StoreError) in
                try statement.bind(1, text: owner)
                try statement.bind(2, int: currentVersion)
                try statement.finish()
            }
            if keptInUserVersion {
                // PRAGMA takes no bound parameters; the value is our own integer.
                try connection.execute("PRAGMA user_version = \(currentVersion)", operation: "write user_version")
            }
        }
    }

    /// The owner's version as the file records it: its `schema_versions` row, and for the session store the higher
    /// of that and `PRAGMA user_version` (a file of an earlier release has only the latter); 0 for neither.
    private func recordedVersion(_ connection: SQLiteConnection) throws(StoreError) -> Int {
        let row = try connection.withStatement(
            "SELECT version FROM schema_versions WHERE owner = ?1", operation: "read the \(owner) schema version"
        ) { statement throws(StoreError) -> Int in
            try statement.bind(1, text: owner)
            guard try statement.step() else { return 0 }
            return statement.int(0)
        }
        guard keptInUserVersion else { return row }
        let legacy = try connection.withStatement("PRAGMA user_version", operation: "read user_version") {
            statement throws(StoreError) -> Int in
            guard try statement.step() else { return 0 }
            return statement.int(0)
        }
        return max(row, legacy)
    }
}
