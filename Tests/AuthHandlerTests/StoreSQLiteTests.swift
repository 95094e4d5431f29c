import Foundation
import TestSupport
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerCrypto
@testable import AuthHandlerHTTP
@testable import AuthHandlerProtocols
@testable import AuthHandlerStore

/// What only the SQLite store promises: the file itself, restarts, and failing cleanly on a bad file.
struct StoreSQLiteTests {
    private func mode(of path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return try #require(attributes[.posixPermissions] as? Int)
    }

    /// SQLite alone would create 0644 minus the umask; the -wal and -shm files inherit the main file's mode.
    @Test func fileAndWALAreCreatedWithMode0600() async throws {
        try await withStoreTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("state.sqlite").path
            let store = try SQLiteSessionStore(path: path)
            #expect(try await store.recordUsedState(key: "state-1", expiresAt: Date() + 60))
            try await store.insertResult(code: "code-1", payload: storeBytes("r"), expiresAt: Date() + 60)
            #expect(try mode(of: path) == 0o600)
            #expect(try mode(of: path + "-wal") == 0o600)
            #expect(try mode(of: path + "-shm") == 0o600)
        }
    }

    @Test func existingWorldReadableFileIsNarrowedTo0600() async throws {
        try await withStoreTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("state.sqlite").path
            #expect(FileManager.default.createFile(atPath: path, contents: nil))
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
            #expect(try mode(of: path) == 0o644)
            _ = try SQLiteSessionStore(path: path)
            #expect(try mode(of: path) == 0o600)
        }
    }

    @Test func journalModeIsWAL() async throws {
        try await withStoreTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("state.sqlite").path
            let store = try SQLiteSessionStore(path: path)
            // A second connection reads the mode from the file: WAL is persistent, not per connection.
            let observer = try SQLiteConnection.open(path: path)
            let mode = try observer.withStatement("PRAGMA journal_mode", operation: "read journal mode") {
                statement throws(StoreError) in
                try statement.step() ? statement.text(0) : ""
            }
            #expect(mode == "wal")
            // The header's read/write format versions are 2 in WAL mode (https://sqlite.org/fileformat2.html).
            let header = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)).prefix(20))
            #expect(header.count == 20 && header[18] == 2 && header[19] == 2)
            #expect(await store.isHealthy())
        }
    }

    /// "No used-state record or redeemable result is lost" by a restart, and a claim in flight survives it too.
    @Test func dataSurvivesReopening() async throws {
        try await withStoreTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("state.sqlite").path
            let clock = TestClock.startingNow()
            let now = clock.date
            do {
                let store = try SQLiteSessionStore(path: path, now: clock.read)
                #expect(try await store.recordUsedState(key: "state-1", expiresAt: now + 600))
                #expect(try await store.recordUsedState(key: "state-2", expiresAt: now + 10))
                try await store.insertResult(code: "code-1", payload: storeBytes("result"), expiresAt: now + 120)
                try await store.insertResult(code: "code-2", payload: storeBytes("claimed"), expiresAt: now + 120)
                #expect(try await store.claimResult(code: "code-2", now: now) == .available(storeBytes("claimed")))
            }
            let reopened = try SQLiteSessionStore(path: path, now: clock.read)
            #expect(try await !reopened.recordUsedState(key: "state-1", expiresAt: now + 600))
            #expect(try await !reopened.recordUsedState(key: "state-2", expiresAt: now + 600))
            #expect(try await reopened.recordUsedState(key: "state-3", expiresAt: now + 600))
            #expect(try await reopened.peekResult(code: "code-1", now: now) == .available(storeBytes("result")))
            #expect(try await reopened.claimResult(code: "code-1", now: now) == .available(storeBytes("result")))
            // A claim in flight at the restart still holds, until its result expires.
            #expect(try await reopened.claimResult(code: "code-2", now: now + 1) == .claimed)
            #expect(try await reopened.claimResult(code: "code-2", now: now + 119) == .claimed)
            #expect(try await reopened.peekResult(code: "code-2", now: now + 119) == .claimed)
            #expect(try await reopened.claimResult(code: "code-2", now: now + 120) == .absent)
            // Expiry is kept across the restart as well.
            clock.advance(by: 10)
            #expect(try await reopened.recordUsedState(key: "state-2", expiresAt: now + 600))
            #expect(try await !reopened.recordUsedState(key: "state-1", expiresAt: now + 600))
        }
    }

    /// Only the SHA-256 of a key or code reaches the disk; the digest's presence shows the bytes were searched.
    @Test func fileHoldsNoPlaintextKey() async throws {
        try await withStoreTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("state.sqlite").path
            let key = "state-PLAINTEXT-MARKER-7f3a9c"
            let code = "code-PLAINTEXT-MARKER-51be02"
            let store = try SQLiteSessionStore(path: path)
            #expect(try await store.recordUsedState(key: key, expiresAt: Date() + 600))
            try await store.insertResult(code: code, payload: storeBytes("payload-B"), expiresAt: Date() + 600)

            var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            bytes += try [UInt8](Data(contentsOf: URL(fileURLWithPath: path + "-wal")))
            // Booleans first, so a failure does not print the whole file. The payload (opaque to the store, sealed by
            // the flow) is looked for only to show that the rows' bytes were searched.
            let holdsPayload = bytes.contains(storeBytes("payload-B"))
            let holdsKeyDigest = bytes.contains(try SHA256.hash(storeBytes(key)))
            let holdsCodeDigest = bytes.contains(try SHA256.hash(storeBytes(code)))
            let holdsPlaintext = bytes.contains(storeBytes("PLAINTEXT-MARKER"))
            #expect(holdsPayload)
            #expect(holdsKeyDigest)
            #expect(holdsCodeDigest)
            #expect(!holdsPlaintext)
        }
    }

    @Test func missingParentDirectoryIsAClearUnavailableError() async throws {
        try await withStoreTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("missing/state.sqlite").path
            let error = #expect(throws: StoreError.self) { try SQLiteSessionStore(path: path) }
            #expect(error?.kind == .unavailable)
            #expect(error?.detail.contains("\(directory.path)/missing") == true)
            #expect(error?.detail.contains("does not exist") == true)
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    @Test func garbageFileIsUnavailableNotACrash() async throws {
        try await withStoreTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("state.sqlite").path
            let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) })
            try garbage.write(to: URL(fileURLWithPath: path))
            let error = #expect(throws: StoreError.self) { try SQLiteSessionStore(path: path) }
            #expect(error?.kind == .unavailable)
            #expect(error?.detail.contains("not a database") == true)
        }
    }

    /// A valid header over a damaged schema page: SQLITE_CORRUPT on the first read, reported, not crashed.
    @Test func corruptSchemaPageIsUnavailable() async throws {
        try await withStoreTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("state.sqlite").path
            do {
                let store = try SQLiteSessionStore(path: path)
                #expect(try await store.recordUsedState(key: "state-1", expiresAt: Date() + 600))
                try await store.insertResult(code: "code-1", payload: storeBytes("p"), expiresAt: Date() + 600)
            }
            // Closing the last connection checkpointed and removed the WAL; damage page 1 after the 100-byte header.
            #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try handle.seek(toOffset: 100)
            try handle.write(contentsOf: Data(repeating: 0xA5, count: 3996))
            try handle.close()

            let error = #expect(throws: StoreError.self) { try SQLiteSessionStore(path: path) }
            #expect(error?.kind == .unavailable)
            #expect(error?.detail.contains("malformed") == true)
        }
    }

    /// `max_page_count` clamped to the current size makes the next growth fail like a full disk (SQLITE_FULL).
    @Test func fullDiskIsUnavailableAndTheStoreRecovers() async throws {
        try await withStoreTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("state.sqlite").path
            let now = Date()
            let store = try SQLiteSessionStore(path: path)
            try await store.insertResult(code: "code-1", payload: storeBytes("small"), expiresAt: now + 600)
            #expect(try await store.recordUsedState(key: "state-1", expiresAt: now + 600))
            try store.executeOnConnection("PRAGMA max_page_count = 1")

            let error = await #expect(throws: StoreError.self) {
                try await store.insertResult(
                    code: "code-2", payload: [UInt8](repeating: 7, count: 65_536), expiresAt: now + 600)
            }
            #expect(error?.kind == .unavailable)
            #expect(error?.detail.hasPrefix("insert result") == true)
            #expect(error?.detail.contains("full") == true)

            // The failed transaction was rolled back: nothing half-written, and the store keeps serving.
            #expect(try await store.peekResult(code: "code-2", now: now) == .absent)
            #expect(try await store.claimResult(code: "code-1", now: now) == .available(storeBytes("small")))
            #expect(try await !store.recordUsedState(key: "state-1", expiresAt: now + 600))
            try await store.insertResult(code: "code-3", payload: storeBytes("small"), expiresAt: now + 600)
            #expect(try await store.peekResult(code: "code-3", now: now) == .available(storeBytes("small")))
            #expect(await store.isHealthy())
        }
    }

    /// A version-1 file (pending sign-ins with verifiers in clear, results in clear) goes through version 2 to the
    /// current one: the pending table is gone, the results are emptied, used states are recorded, and the store serves.
    @Test func versionOneFileMigratesToTheCurrentVersion() async throws {
        try await withStoreTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("state.sqlite").path
            #expect(FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]))
            do {
                let old = try SQLiteConnection.open(path: path)
                try old.execute(SQLiteSchema.migrations[0], operation: "test: version 1 schema")
                try old.execute("PRAGMA user_version = 1", operation: "test: version 1")
                try old.withStatement(
                    "INSERT INTO pending(key_hash, payload, expires_at) VALUES (?1, ?2, ?3)", operation: "test: pending"
                ) { statement throws(StoreError) in
                    try statement.bind(1, blob: StoreKeyDigest.of("state-v1"))
                    try statement.bind(2, blob: storeBytes("verifier in clear"))
                    try statement.bind(3, double: Date().timeIntervalSince1970 + 600)
                    try statement.finish()
                }
                try old.withStatement(
                    "INSERT INTO results(code_hash, payload, expires_at) VALUES (?1, ?2, ?3)", operation: "test: result"
                ) { statement throws(StoreError) in
                    try statement.bind(1, blob: StoreKeyDigest.of("code-v1"))
                    try statement.bind(2, blob: storeBytes("result in clear"))
                    try statement.bind(3, double: Date().timeIntervalSince1970 + 600)
                    try statement.finish()
                }
                #expect(try Self.integer("PRAGMA user_version", on: old) == 1)
                #expect(try Self.integer("SELECT count(*) FROM pending", on: old) == 1)
                #expect(try Self.integer("SELECT count(*) FROM results", on: old) == 1)
            }

            let store = try SQLiteSessionStore(path: path)
            let observer = try SQLiteConnection.open(path: path)
            #expect(try Self.integer("PRAGMA user_version", on: observer) == SQLiteSchema.currentVersion)
            #expect(try Self.integer(Self.tableCount("pending"), on: observer) == 0)
            #expect(try Self.integer(Self.tableCount("used_states"), on: observer) == 1)
            #expect(try Self.integer(Self.tableCount("results"), on: observer) == 1)
            #expect(try Self.integer("SELECT count(*) FROM results", on: observer) == 0)

            #expect(try await store.peekResult(code: "code-v1", now: Date()) == .absent)
            #expect(try await store.claimResult(code: "code-v1", now: Date()) == .absent)
            // The old code's row is gone, not hidden: the same code can be inserted again.
            try await store.insertResult(code: "code-v1", payload: storeBytes("sealed"), expiresAt: Date() + 60)
            #expect(try await store.claimResult(code: "code-v1", now: Date()) == .available(storeBytes("sealed")))
            #expect(try await store.recordUsedState(key: "state-v1", expiresAt: Date() + 60))
            #expect(try await !store.recordUsedState(key: "state-v1", expiresAt: Date() + 60))
            #expect(await store.isHealthy())
        }
    }

    /// A version-2 file gains the counters table (HTTP-API.md §3.9's wrong-code counts) and keeps its used states and
    /// results.
    @Test func versionTwoFileMigratesToVersionThreeKeepingItsRows() async throws {
        try await withStoreTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("state.sqlite").path
            let expiresAt = Date() + 600
            do {
                let store = try SQLiteSessionStore(path: path)
                #expect(try await store.recordUsedState(key: "state-v2", expiresAt: expiresAt))
                try await store.insertResult(code: "code-v2", payload: storeBytes("sealed"), expiresAt: expiresAt)
            }
            // What version 2 wrote: the same file without the counters table, nor anything later.
            do {
                let old = try SQLiteConnection.open(path: path)
                try old.execute(
                    "DROP TABLE counters; DROP TABLE device_records; DROP TABLE device_decisions; "
                        + "DROP TABLE schema_versions; PRAGMA user_version = 2", operation: "test: version 2")
                #expect(try Self.integer(Self.tableCount("counters"), on: old) == 0)
            }

            let store = try SQLiteSessionStore(path: path)
            let observer = try SQLiteConnection.open(path: path)
            #expect(try Self.integer("PRAGMA user_version", on: observer) == SQLiteSchema.currentVersion)
            #expect(try Self.integer(Self.tableCount("counters"), on: observer) == 1)
            #expect(try await !store.recordUsedState(key: "state-v2", expiresAt: expiresAt))
            #expect(try await store.peekResult(code: "code-v2", now: Date()) == .available(storeBytes("sealed")))
            #expect(try await store.incrementCounter(key: "address", window: .seconds(60)).count == 1)
            #expect(try await store.incrementCounter(key: "address", window: .seconds(60)).count == 2)
        }
    }

    /// A version-3 file, as this release's predecessor made it (its three steps, `PRAGMA user_version` 3 and no
    /// `schema_versions`), gains the device tables and per-owner versions and keeps its used states, results and counts.
    @Test func versionThreeFileMigratesToVersionFourKeepingItsRows() async throws {
        try await withStoreTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("state.sqlite").path
            #expect(FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]))
            let expiresAt = Date() + 600
            do {
                let old = try SQLiteConnection.open(path: path)
                for step in SQLiteSchema.migrations.prefix(3) {
                    try old.execute(step, operation: "test: a version 3 step")
                }
                try old.execute("PRAGMA user_version = 3", operation: "test: version 3")
                for (sql, key) in [
                    ("INSERT INTO used_states(state_hash, expires_at) VALUES (?1, ?2)", "state-v3"),
                    ("INSERT INTO results(code_hash, payload, expires_at) VALUES (?1, X'7365616C6564', ?2)", "code-v3"),
                    ("INSERT INTO counters(key_hash, count, expires_at) VALUES (?1, 4, ?2)", "address-v3"),
                ] {
                    try old.withStatement(sql, operation: "test: a version 3 row") { statement throws(StoreError) in
                        try statement.bind(1, blob: StoreKeyDigest.of(key))
                        try statement.bind(2, double: expiresAt.timeIntervalSince1970)
                        try statement.finish()
                    }
                }
                #expect(try Self.integer(Self.tableCount("schema_versions"), on: old) == 0)
            }

            let store = try SQLiteSessionStore(path: path)
            let observer = try SQLiteConnection.open(path: path)
            #expect(try Self.integer("PRAGMA user_version", on: observer) == 4)
            #expect(try Self.integer("SELECT version FROM schema_versions WHERE owner = 'sessions'", on: observer) == 4)
            #expect(try Self.integer(Self.tableCount("device_records"), on: observer) == 1)
            #expect(try Self.integer(Self.tableCount("device_decisions"), on: observer) == 1)
            #expect(try await !store.recordUsedState(key: "state-v3", expiresAt: expiresAt))
            #expect(try await store.peekResult(code: "code-v3", now: Date()) == .available(storeBytes("sealed")))
            #expect(try await store.incrementCounter(key: "address-v3", window: .seconds(60)).count == 5)
            try await store.putDeviceRecord(kind: .grant, key: "device:d", payload: [7], expiresAt: expiresAt)
            #expect(try await store.deviceRecord(kind: .grant, key: "device:d", now: Date()) == [7])
            #expect(try await store.decideOnce(key: "device-used:r", expiresAt: expiresAt))
            #expect(try await store.isDecided(key: "device-used:r", now: Date()))

            // Opened again, nothing migrates a second time and every row is there.
            let again = try SQLiteSessionStore(path: path)
            #expect(try await again.deviceRecord(kind: .grant, key: "device:d", now: Date()) == [7])
            #expect(try await !again.decideOnce(key: "device-used:r", expiresAt: expiresAt))
            #expect(try await again.peekResult(code: "code-v3", now: Date()) == .available(storeBytes("sealed")))
        }
    }

    /// A second owner keeps its tables in the session store's file with migrations of its own: neither owner's version
    /// moves the other's, each migrates only its own steps, and a newer version of either is refused.
    @Test func aSecondOwnerMigratesItsOwnTablesBesideTheSessionStore() async throws {
        try await withStoreTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("state.sqlite").path
            let store = try SQLiteSessionStore(path: path)
            try await store.insertResult(code: "code", payload: [1], expiresAt: Date() + 600)
            let accounts = SQLiteMigrations(
                owner: "accounts",
                steps: [
                    "CREATE TABLE accounts(id BLOB NOT NULL PRIMARY KEY, email TEXT NOT NULL)",
                    "CREATE UNIQUE INDEX accounts_email ON accounts(email)",
                ])
            let connection = try SQLiteConnection.openStore(path: path, busyTimeout: .seconds(2))
            try accounts.migrate(connection)
            try accounts.migrate(connection)
            #expect(
                try Self.integer("SELECT version FROM schema_versions WHERE owner = 'accounts'", on: connection) == 2)
            #expect(
                try Self.integer("SELECT version FROM schema_versions WHERE owner = 'sessions'", on: connection)
                    == SQLiteSchema.currentVersion)
            #expect(try Self.integer("PRAGMA user_version", on: connection) == SQLiteSchema.currentVersion)
            #expect(try Self.integer(Self.tableCount("accounts"), on: connection) == 1)

            // The session store opens the shared file as before, its rows untouched.
            let reopened = try SQLiteSessionStore(path: path)
            #expect(try await reopened.peekResult(code: "code", now: Date()) == .available([1]))

            try connection.execute(
                "UPDATE schema_versions SET version = 9 WHERE owner = 'accounts'", operation: "test: a newer owner")
            let error = #expect(throws: StoreError.self) { try accounts.migrate(connection) }
            #expect(error?.detail.contains("accounts schema version 9") == true)
            // Another owner's newer version is not the session store's business.
            _ = try SQLiteSessionStore(path: path)
        }
    }

    /// The statement counting `sqlite_master` tables named `name`.
    private static func tableCount(_ name: String) -> String {
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '\(name)'"
    }

    /// The first column of the first row of `sql`, as an integer.
    private static func integer(_ sql: String, on connection: SQLiteConnection) throws -> Int {
        try connection.withStatement(sql, operation: "test: read") { statement throws(StoreError) -> Int in
            guard try statement.step() else { return -1 }
            return statement.int(0)
        }
    }

    @Test func newerSchemaVersionIsRefused() async throws {
        try await withStoreTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("state.sqlite").path
            _ = try SQLiteSessionStore(path: path)
            try SQLiteConnection.open(path: path).execute("PRAGMA user_version = 99", operation: "test")
            let error = #expect(throws: StoreError.self) { try SQLiteSessionStore(path: path) }
            #expect(error?.kind == .unavailable)
            #expect(error?.detail.contains("schema version 99") == true)
        }
    }

    @Test func errorsNameTheOperationAndNeverTheKey() async throws {
        try await withStoreTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("state.sqlite").path
            let store = try SQLiteSessionStore(path: path)
            try await store.insertResult(code: "code-SECRET-1", payload: storeBytes("p"), expiresAt: Date() + 60)
            let error = await #expect(throws: StoreError.self) {
                try await store.insertResult(code: "code-SECRET-1", payload: storeBytes("p"), expiresAt: Date() + 60)
            }
            #expect(error?.kind == .unavailable)
            #expect(error?.detail.hasPrefix("insert result") == true)
            #expect(error?.detail.contains("UNIQUE constraint failed") == true)
            #expect(error?.detail.contains("SECRET") == false)
        }
    }

    @Test func parentDirectoryOfPaths() {
        #expect(StoreFile.parentDirectory(of: "/var/lib/auth-handler/state.sqlite") == "/var/lib/auth-handler")
        #expect(StoreFile.parentDirectory(of: "/state.sqlite") == "/")
        #expect(StoreFile.parentDirectory(of: "state.sqlite") == ".")
        #expect(StoreFile.parentDirectory(of: "data/state.sqlite") == "data")
    }
}

extension Array where Element == UInt8 {
    /// Whether `needle` occurs as a contiguous run.
    fileprivate func contains(_ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return needle.isEmpty }
        return (0...(count - needle.count)).contains { self[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
