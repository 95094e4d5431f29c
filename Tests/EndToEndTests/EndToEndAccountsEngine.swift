import AuthHandlerCrypto
import AuthHandlerStore
import Foundation
import TestSupport
import Testing

/// The accounts store an end-to-end test's daemon runs on: every accounts test runs once on each (docs/ACCOUNTS.md
/// "Storage": the two engines keep the same records with the same rules).
enum AccountsDatabaseEngine: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite
    /// A fresh database (`CREATE DATABASE`) on the test process's one PostgreSQL server (`PostgresTestServer`).
    case postgres

    var testDescription: String { rawValue }

    /// The engine `EndToEnd.Backend.accounts` uses when none is named: the one the running test was given, so each
    /// accounts test runs its body once per engine (`withEngine`) without naming it at every start.
    @TaskLocal static var current = AccountsDatabaseEngine.sqlite

    /// The server a test's PostgreSQL database is made on: the process's shared one, unless the test set its own (a
    /// test that stops it).
    @TaskLocal static var server: PostgresTestServer?

    /// The directory of a daemon whose PostgreSQL database a new daemon shares, as a second instance would (the keys
    /// come with it: the database keeps them); nil for a database of its own.
    @TaskLocal static var sharedWith: URL?

    /// Runs `body` with ``current`` set to this engine.
    func run(_ body: () async throws -> Void) async throws {
        try await Self.$current.withValue(self) { try await body() }
    }

    /// Where the test's PostgreSQL database is, as files in its directory (so a restarted daemon finds the same one).
    struct PostgresDatabase {
        var url: String
        var name: String
        var password: String
        var port: Int
        /// The daemons' `statementTimeoutMs`.
        var timeoutMilliseconds: Int
    }

    /// Creates the test's database and writes what its daemons' configs name: the URL and the password.
    static func preparePostgres(in directory: URL) async throws {
        if let sharedWith {
            for file in [
                "postgres-url", "postgres-database", "postgres-password", "postgres-port", "postgres-timeout-ms",
            ] {
                try FileManager.default.copyItem(
                    at: sharedWith.appendingPathComponent(file), to: directory.appendingPathComponent(file))
            }
            return
        }
        var server = Self.server
        if server == nil { server = try await PostgresTestServer.shared() }
        guard let server else { return }
        let name = try server.makeDatabase()
        // A test with a server of its own stops or hangs it and times the 503s against 2 s; on the shared server, which
        // never stops, a parallel run on two loaded cores must not turn a slow answer into a 503, so 10 s.
        let timeout = Self.server == nil ? 10_000 : 2000
        let files: [(String, String)] = [
            ("postgres-url", server.url(database: name)), ("postgres-database", name),
            ("postgres-password", server.password), ("postgres-port", String(server.port)),
            ("postgres-timeout-ms", String(timeout)),
        ]
        for (file, text) in files { try Data(text.utf8).write(to: directory.appendingPathComponent(file)) }
    }

    /// The test's PostgreSQL database, or nil when its daemon runs on SQLite.
    static func postgresDatabase(in directory: URL) throws -> PostgresDatabase {
        func read(_ name: String) throws -> String {
            try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
        }
        return PostgresDatabase(
            url: try read("postgres-url"), name: try read("postgres-database"), password: try read("postgres-password"),
            port: Int(try read("postgres-port")) ?? 0, timeoutMilliseconds: Int(try read("postgres-timeout-ms")) ?? 2000
        )
    }

    /// Whether the daemon in `directory` runs on PostgreSQL.
    static func isPostgres(_ directory: URL) -> Bool {
        FileManager.default.fileExists(atPath: directory.appendingPathComponent("postgres-url").path)
    }
}

extension EndToEnd {
    /// Runs one statement on the test's PostgreSQL database (with `values` as `$1`, …); answers the rows it changed.
    func postgresRun(_ sql: String, _ values: [PostgresValue]) throws -> Int {
        let database = try AccountsDatabaseEngine.postgresDatabase(in: directory)
        let settings = PostgresSettings(
            url: database.url, password: Secret(database.password), poolSize: 1, statementTimeout: .seconds(10))
        let deadline = ContinuousClock.now + .seconds(10)
        let connection = try PostgresConnection(parameters: settings.parameters, deadline: deadline)
        return try connection.execute(sql, values, operation: "test statement", deadline: deadline).changed
    }

    /// Sets `column` of the account of `normalizedEmail` in the database to `value`, as a hand-written row would
    /// (a state the tests need without the steps that make it, or one no step makes); fails unless exactly one row
    /// changed. On SQLite a boolean is stored as 0 or 1, as the store keeps it.
    func setAccountColumn(_ column: String, to value: PostgresValue, of normalizedEmail: String) async throws {
        let statement = "UPDATE account_users SET \(column) = $1 WHERE normalized_email = $2"
        if AccountsDatabaseEngine.isPostgres(directory) {
            let changed = try postgresRun(statement, [value, .text(normalizedEmail)])
            try #require(changed == 1, "setting \(column) of \(normalizedEmail): \(changed) rows changed")
            return
        }
        let sqliteValue: [String]
        switch value {
        case .text(let text): sqliteValue = ["text", text]
        case .bool(let flag): sqliteValue = ["int", flag ? "1" : "0"]
        default: throw TestProcessError("setAccountColumn takes text or a boolean, not \(value)")
        }
        let script = """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1], timeout=10)
            value = int(sys.argv[5]) if sys.argv[4] == "int" else sys.argv[5]
            n = db.execute(sys.argv[2].replace("$1", "?1").replace("$2", "?2"), (value, sys.argv[3]))
            db.commit()
            sys.exit(0 if n.rowcount == 1 else 3)
            """
        let database = directory.appendingPathComponent("accounts.sqlite").path
        let process = try TestProcess(
            "/usr/bin/python3", ["-I", "-c", script, database, statement, normalizedEmail] + sqliteValue,
            package: "python3")
        let status = await process.exitCode()
        try #require(status == 0, "setting \(column) of \(normalizedEmail): \(process.standardError)")
    }

    /// The PostgreSQL database's whole content as `pg_dump` writes it (what an attacker with a backup would have),
    /// followed by the bytes of every `bytea` value in it (which the dump writes in hex), so a search for a digest's
    /// or a token's bytes looks where they would be.
    func postgresDump() async throws -> [UInt8] {
        let database = try AccountsDatabaseEngine.postgresDatabase(in: directory)
        let dump = try TestProcess(
            "\(PostgresTestServer.binaries)/pg_dump",
            ["-h", "127.0.0.1", "-p", String(database.port), "-U", PostgresTestServer.user, database.name],
            package: "postgresql", environment: ["PGPASSWORD": database.password])
        let status = await dump.exitCode()
        #expect(status == 0, "pg_dump: \(dump.standardError)")
        let text = dump.standardOutput
        var bytes = Array(text.utf8)
        for match in text.matches(of: /\\\\x([0-9a-f]+)/) {
            let hex = Array(match.output.1.utf8)
            for index in stride(from: 0, to: hex.count - 1, by: 2) {
                if let byte = UInt8(String(decoding: hex[index...index + 1], as: UTF8.self), radix: 16) {
                    bytes.append(byte)
                }
            }
        }
        return bytes
    }
}
