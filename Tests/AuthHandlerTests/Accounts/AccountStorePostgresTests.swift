import Foundation
import TestSupport
import Testing

@testable import AuthHandlerAccounts
@testable import AuthHandlerCrypto
@testable import AuthHandlerStore

/// What only the PostgreSQL engine has (docs/ACCOUNTS.md "Storage"): migrations shared by instances that start
/// together, several instances on one database, and a server that stops and comes back. One test at a time, and in a
/// run of their own (Makefile `test`): a stopped server's answer is timed, and the 100,000-user import beside it, or
/// the other unit tests, could delay the pool's threads past the bound on two cores.
@Suite(.serialized) struct AccountStorePostgresTests {
    typealias Fixture = AccountFixture

    /// `count` stores on one fresh database of the shared server, as `count` instances would open it.
    static func instances(_ count: Int, clock: TestClock = TestClock()) async throws
        -> (stores: [PostgresAccountStore], settings: PostgresSettings)
    {
        let server = try await PostgresTestServer.shared()
        let settings = server.settings(database: try server.makeDatabase())
        // Opened at once, each on a thread of its own, so their migrations race for the advisory lock.
        let stores = try await withThrowingTaskGroup(of: PostgresAccountStore.self) { group in
            for _ in 0..<count {
                group.addTask { try PostgresAccountStore(settings: settings, now: clock.read) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        return (stores, settings)
    }

    @Test("instances starting together migrate once; a database from a newer auth-handler is refused by name")
    func migrationsUnderTheAdvisoryLock() async throws {
        let (stores, settings) = try await Self.instances(4)
        #expect(stores.count == 4)
        let deadline = ContinuousClock.now + .seconds(10)
        let connection = try PostgresConnection(parameters: settings.parameters, deadline: deadline)
        let version = try connection.execute(
            "SELECT version FROM schema_versions WHERE owner = 'accounts'", operation: "read", deadline: deadline)
        #expect(version.rows.map { $0.int(0) } == [PostgresAccountSchema.accounts.currentVersion])

        try connection.execute(
            "UPDATE schema_versions SET version = 99 WHERE owner = 'accounts'", operation: "bump", deadline: deadline)
        let refusal = #expect(throws: StoreError.self) { try PostgresAccountStore(settings: settings) }
        let detail = refusal?.detail ?? ""
        #expect(detail.contains("newer auth-handler") && detail.contains("v99"), "\(detail)")
        #expect(!detail.contains(settings.password?.reveal() ?? "no password"))
    }

    @Test("two instances: one refresh token rotated at once on both has one successor; one e-mail makes one account")
    func concurrencyAcrossInstances() async throws {
        let (stores, _) = try await Self.instances(2)
        let alice = try Fixture.user("alice", email: "alice@example.com")
        try await stores[0].insertUser(alice, identity: nil)
        let session = Fixture.session("s1", of: alice.localID)
        try await stores[1].insertSession(session, firstToken: try Fixture.token("t0", session: "s1"))
        for round in 0..<10 {
            let token = try Fixture.digest(round == 0 ? "t0" : "t\(round)")
            let outcomes = try await withThrowingTaskGroup(of: RefreshTokenRotation.self) { group in
                for (index, store) in stores.enumerated() {
                    group.addTask {
                        try await store.rotateRefreshToken(
                            digest: token, successorDigest: try Fixture.digest("t\(round + 1)-\(index)"),
                            sealedSuccessor: [UInt8(index)], at: Fixture.start + 1)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == .rotated }.count == 1, "round \(round): \(outcomes)")
            // The winner's successor is the one stored: the next round rotates it.
            let record = try #require(try await stores[0].refreshToken(digest: token))
            let winner = try #require(record.sealedSuccessor?.first)
            #expect(record.successorDigest == (try Fixture.digest("t\(round + 1)-\(winner)")))
            try await stores[0].insertSession(
                Fixture.session("s-next-\(round)", of: alice.localID),
                firstToken: try Fixture.token("t\(round + 1)", session: "s-next-\(round)"))
        }

        for round in 0..<10 {
            let outcomes = await withTaskGroup(of: StoreError?.self) { group in
                for (index, store) in stores.enumerated() {
                    group.addTask {
                        await accountStoreError {
                            try await store.insertUser(
                                try Fixture.user("u\(round)-\(index)", email: "same\(round)@example.com"), identity: nil
                            )
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == nil }.count == 1, "round \(round): \(outcomes)")
            #expect(outcomes.compactMap { $0?.kind } == [.constraint("email")], "round \(round): \(outcomes)")
        }
    }

    @Test(
        "a lone statement is a serialisable transaction of its own, and one only; a connection without the setting is refused"
    )
    func loneStatements() async throws {
        let server = try await PostgresTestServer.shared()
        let settings = server.settings(database: try server.makeDatabase(), poolSize: 1)
        let pool = PostgresPool(settings: settings, name: "lone statement test")
        let level = try await pool.statement("read the isolation level") { transaction throws(StoreError) in
            try transaction.first("SELECT current_setting('transaction_isolation')") { row throws(StoreError) in
                row.text(0)
            }
        }
        #expect(level == "serializable")
        // Outside a transaction block: the statement committed when it ended, so another connection sees its write.
        _ = try await pool.statement("create") { transaction throws(StoreError) in
            try transaction.run("CREATE TABLE lone(n INT)")
        }
        let deadline = ContinuousClock.now + .seconds(10)
        let other = try PostgresConnection(parameters: settings.parameters, deadline: deadline)
        try other.execute("INSERT INTO lone VALUES (1)", operation: "insert", deadline: deadline)
        let second = await accountStoreError {
            _ = try await pool.statement("two statements") { transaction throws(StoreError) in
                try transaction.run("UPDATE lone SET n = 2")
                try transaction.run("UPDATE lone SET n = 3")
            }
        }
        #expect(second?.detail.contains("a second statement outside a transaction") == true, "\(second?.detail ?? "")")
        let rows = try other.execute("SELECT n FROM lone", operation: "read", deadline: deadline).rows
        #expect(rows.map { $0.int(0) } == [2])

        // A connection a job left inside a transaction block is closed at check-in, what it held rolled back: the
        // next job gets a new connection, outside any block.
        let slot = PostgresWorkerSlot(settings: settings)
        do {
            let (held, _) = try slot.connection(until: deadline)
            try held.execute("BEGIN", operation: "begin", deadline: deadline)
            try held.execute("UPDATE lone SET n = 4", operation: "update", deadline: deadline)
            #expect(!held.isIdle)
            slot.checkIn()
            let (next, reused) = try slot.connection(until: deadline)
            #expect(!reused && next !== held && next.isIdle)
        }
        // The held connection is closed now; the row lock its UPDATE took is released once the server has rolled it
        // back (FOR UPDATE waits for that), and the row is as before.
        let locked = try slot.connection(until: deadline).connection.execute(
            "SELECT n FROM lone FOR UPDATE", operation: "lock", deadline: deadline)
        #expect(locked.rows.map { $0.int(0) } == [2])
        slot.checkIn()
        #expect(try slot.connection(until: deadline).reused, "an idle connection is kept")

        // Without the connection's options (as through a pooler that drops them) a lone statement would be read
        // committed: such a connection is refused by name.
        let bare = try PostgresConnection(
            parameters: settings.parameters.filter { $0.keyword != "options" }, deadline: deadline)
        let refusal = #expect(throws: StoreError.self) {
            try PostgresWorkerSlot.checkSerializable(bare, deadline: deadline)
        }
        #expect(refusal?.detail.contains("default_transaction_isolation is read committed") == true)
    }

    @Test("a transaction whose body caught a failed statement's error fails at COMMIT, and none of its writes stay")
    func abortedTransactionFailsAtCommit() async throws {
        let server = try await PostgresTestServer.shared()
        let settings = server.settings(database: try server.makeDatabase(), poolSize: 1)
        let pool = PostgresPool(settings: settings, name: "aborted transaction test")
        _ = try await pool.statement("create") { transaction throws(StoreError) in
            try transaction.run("CREATE TABLE aborted(n INT)")
        }
        let failure = await accountStoreError {
            _ = try await pool.transaction("write, then a failure caught") { transaction throws(StoreError) in
                try transaction.run("INSERT INTO aborted VALUES (1)")
                // 22012 division_by_zero: not a serialisation failure, so the transaction is not tried again.
                _ = try? transaction.run("SELECT 1 / 0")
            }
        }
        #expect(failure?.detail.contains("PostgreSQL answered ROLLBACK to COMMIT") == true, "\(failure?.detail ?? "")")
        let count = try await pool.statement("count") { transaction throws(StoreError) in
            try transaction.first("SELECT count(*) FROM aborted") { row throws(StoreError) in row.int(0) }
        }
        #expect(count == 0)
        // The pooled connection is usable afterwards: outside any transaction block.
        let written = try await pool.transaction("write") { transaction throws(StoreError) in
            try transaction.run("INSERT INTO aborted VALUES (2)")
        }
        #expect(written == 1)
    }

    @Test(
        "the keys the database keeps: one signing key for instances settling together, sealed; another stateKey refused with nothing changed; a previous one moves the check and reseals"
    )
    func keysTheDatabaseKeeps() async throws {
        let (_, settings) = try await Self.instances(1)
        let stateKey = try SecureRandom.bytes(32)
        func settle(_ key: [UInt8], previous: [[UInt8]] = []) throws -> String? {
            try DatabaseKeys.settle(
                settings: settings, stateKey: key, previousStateKeys: previous, keepsSigningKey: true)?
                .keyID
        }
        let keys = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<4 { group.addTask { try settle(stateKey) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(keys.count == 4 && Set(keys).count == 1 && keys.first != nil, "\(keys)")
        let deadline = ContinuousClock.now + .seconds(10)
        let connection = try PostgresConnection(parameters: settings.parameters, deadline: deadline)
        func rows() throws -> [String: [UInt8]] {
            let result = try connection.execute(
                "SELECT name, value FROM account_keys", operation: "read", deadline: deadline)
            return Dictionary(uniqueKeysWithValues: result.rows.map { ($0.text(0), $0.bytes(1)) })
        }
        let before = try rows()
        #expect(Set(before.keys) == ["state-key-check", "signing-key"])
        #expect(!String(decoding: before["signing-key"] ?? [], as: UTF8.self).contains("PRIVATE KEY"))

        // Another state key, alone: refused by name, and the database is as it was.
        let other = try SecureRandom.bytes(32)
        let refusal = #expect(throws: AccountSigningKeyError.self) { try settle(other) }
        #expect(refusal?.message.contains("seals with a different stateKey") == true, "\(refusal?.message ?? "")")
        #expect(try rows() == before)
        // A rotation (the old key previous): the same signing key, the check moved, the seal made again.
        #expect(try settle(other, previous: [stateKey]) == keys.first)
        let after = try rows()
        #expect(after["state-key-check"] != before["state-key-check"] && after["signing-key"] != before["signing-key"])
        #expect(try settle(other) == keys.first)
        #expect(throws: AccountSigningKeyError.self) { try settle(stateKey) }
        // With signingKey configured, only the check: nothing made, nothing answered.
        #expect(
            try DatabaseKeys.settle(settings: settings, stateKey: other, previousStateKeys: [], keepsSigningKey: false)
                == nil)

        // The state key of instances whose config names none: the first candidate stored is every one's.
        let first = try SecureRandom.bytes(32)
        let second = try SecureRandom.bytes(32)
        let stored = { (candidate: [UInt8]) throws in
            try PostgresAccountStore.storedKey(
                PostgresAccountStore.stateKeyName, candidate: candidate, settings: settings, at: Date())
        }
        #expect(try stored(first) == first)
        #expect(try stored(second) == first)
    }

    @Test("the throttles' counters count across instances")
    func countersAcrossInstances() async throws {
        let (stores, _) = try await Self.instances(2)
        var counts: [Int] = []
        for index in 0..<6 {
            counts.append(
                try await stores[index % 2].incrementCounter(key: "sign-in:alice", window: .seconds(60)).count)
        }
        #expect(counts == [1, 2, 3, 4, 5, 6])
        try await stores[1].decrementCounter(key: "sign-in:alice")
        #expect(try await stores[0].incrementCounter(key: "sign-in:alice", window: .seconds(60)).count == 6)
    }

    @Test("a stopped server: each operation is unavailable within the timeout, readiness says so; all returns with it")
    func stoppedServer() async throws {
        let parent = FileManager.default.temporaryDirectory
        let server = try await PostgresTestServer.start(in: parent)
        defer { try? FileManager.default.removeItem(at: server.directory) }
        try await withCleanup({ await server.stop() }) {
            let settings = server.settings(
                database: try server.makeDatabase(), statementTimeout: .milliseconds(500), poolSize: 2)
            let store = try PostgresAccountStore(settings: settings)
            let alice = try Fixture.user("alice", email: "alice@example.com")
            try await store.insertUser(alice, identity: nil)
            #expect(await store.healthProblem() == nil)

            await server.stop()
            for _ in 0..<3 {
                let started = ContinuousClock.now
                let error = await accountStoreError { _ = try await store.user(localID: alice.localID) }
                #expect(error?.kind == .unavailable)
                #expect(ContinuousClock.now - started < .seconds(2))
            }
            #expect(await store.healthProblem() != nil)

            try await server.start()
            #expect(await store.healthProblem() == nil)
            #expect(try await store.user(localID: alice.localID) == alice)
            try await store.insertUser(try Fixture.user("bob", email: "bob@example.com"), identity: nil)
            #expect(try await store.listUsers(after: nil, limit: 10).count == 2)
        }
    }

    @Test("100,000 users import in one transaction well under a minute; the same file again changes nothing")
    func largeImport() async throws {
        let (stores, _) = try await Self.instances(1)
        let store = try #require(stores.first)
        let batch = try (0..<100_000).map { index in
            // Fixed width, so that padding to a localId's length keeps them apart.
            let name = "imp" + String(repeating: "x", count: 6 - String(index).count) + String(index)
            var user = try Fixture.user(name, email: "user\(index)@example.com")
            user.legacyPasswordHash = "$2b$12$" + String(repeating: "a", count: 53)
            let identities =
                index % 10 == 0 ? [Fixture.identity("google.com", "g\(index)", of: user.localID)] : []
            return AccountImport(user: user, identities: identities)
        }
        let started = ContinuousClock.now
        #expect(try await store.importUsers(batch) == .imported(inserted: 100_000, skipped: 0))
        #expect(ContinuousClock.now - started < .seconds(60))
        #expect(try await store.importUsers(batch) == .imported(inserted: 0, skipped: 100_000))
        let last = try #require(batch.last)
        #expect(try await store.user(localID: last.user.localID) == last.user)
        #expect(
            try await store.identity(providerID: "google.com", providerUserID: "g0")?.localID == batch[0].user.localID)
    }
}
