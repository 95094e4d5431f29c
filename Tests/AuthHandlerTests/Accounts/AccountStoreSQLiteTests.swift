import Foundation
import TestSupport
import Testing

@testable import AuthHandlerAccounts
@testable import AuthHandlerStore

/// What only the SQLite engine promises: its file (mode, version, what its bytes hold).
struct AccountStoreSQLiteTests {
    typealias Fixture = AccountFixture

    private func mode(of path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return try #require(attributes[.posixPermissions] as? Int)
    }

    @Test func fileIsCreatedWithMode0600() async throws {
        try await withStoreTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("accounts.sqlite").path
            let store = try SQLiteAccountStore(path: path)
            try await store.insertUser(try Fixture.user("alice"), identity: nil)
            #expect(try mode(of: path) == 0o600)
            #expect(try mode(of: path + "-wal") == 0o600)
        }
    }

    /// A file migrated by a newer binary is refused with a message that names the file and both versions.
    @Test func aNewerFileIsRefused() async throws {
        try await withStoreTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("accounts.sqlite").path
            _ = try SQLiteAccountStore(path: path)
            let connection = try SQLiteConnection.open(path: path)
            try connection.execute(
                "UPDATE schema_versions SET version = 9 WHERE owner = 'accounts'", operation: "test: a newer version")
            let error = #expect(throws: StoreError.self) { _ = try SQLiteAccountStore(path: path) }
            #expect(error?.kind == .unavailable)
            #expect(
                error?.detail
                    == "\(path) was written by a newer auth-handler (accounts schema v9, this binary knows "
                    + "v\(SQLiteAccountSchema.migrations.count)); "
                    + "upgrade the binary or restore a backup")
            // The current version opens.
            try connection.execute(
                "UPDATE schema_versions SET version = \(SQLiteAccountSchema.migrations.count) WHERE owner = 'accounts'",
                operation: "test: this version")
            _ = try SQLiteAccountStore(path: path)
        }
    }

    /// Four stores on one file are four connections, which only SQLite's own locking keeps apart: the rotation's read
    /// and writes must be one transaction there too (two processes on one file).
    @Test func rotationsThroughSeveralConnectionsYieldOneSuccessor() async throws {
        try await withStoreTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("accounts.sqlite").path
            let stores = try (0..<4).map { _ in try SQLiteAccountStore(path: path) }
            let alice = try Fixture.user("alice")
            try await stores[0].insertUser(alice, identity: nil)
            for round in 0..<100 {
                let sid = "s\(round)"
                let token = try Fixture.digest("rt-\(round)")
                try await stores[0].insertSession(
                    Fixture.session(sid, of: alice.localID),
                    firstToken: RefreshTokenRecord(digest: token, sessionID: sid, issuedAt: Fixture.start))
                let rotated = try await withThrowingTaskGroup(of: Bool.self) { group in
                    for index in 0..<16 {
                        let store = stores[index % stores.count]
                        let successor = try Fixture.digest("rt-\(round)-\(index)")
                        group.addTask {
                            try await store.rotateRefreshToken(
                                digest: token, successorDigest: successor, sealedSuccessor: [UInt8(index)],
                                at: Fixture.start) == .rotated
                        }
                    }
                    var rotated = 0
                    for try await outcome in group where outcome { rotated += 1 }
                    return rotated
                }
                #expect(rotated == 1, "round \(round)")
            }
        }
    }

    /// The store is given digests: a token, code or credential never given to it cannot be in its file, and the
    /// digest that stands for it is (which shows the search can find what is there).
    @Test func theFileHoldsDigestsNotSecrets() async throws {
        try await withStoreTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("accounts.sqlite").path
            let store = try SQLiteAccountStore(path: path)
            let alice = try Fixture.user("alice", email: "alice@example.com")
            try await store.insertUser(alice, identity: nil)
            let secrets = [
                "refresh-token-QmFzZTY0VXJsU2FmZVJhbmRvbQ", "successor-token-U2Vjb25kUmFuZG9tVmFsdWU",
                "oob-code-VGhpcnR5VHdvUmFuZG9tQnl0ZXM", "pending-credential-UGVuZGluZ0NyZWRlbnRpYWw",
            ]
            let digests = try secrets.map(Fixture.digest)
            try await store.insertSession(
                Fixture.session("s1", of: alice.localID),
                firstToken: RefreshTokenRecord(digest: digests[0], sessionID: "s1", issuedAt: Fixture.start))
            #expect(
                try await store.rotateRefreshToken(
                    digest: digests[0], successorDigest: digests[1], sealedSuccessor: Array("sealed-opaque".utf8),
                    at: Fixture.start) == .rotated)
            try await store.insertCode(try Fixture.code(secrets[2], of: alice.localID))
            try await store.insertPendingCredential(
                PendingCredentialRecord(digest: digests[3], localID: alice.localID, expiresAt: Fixture.start + 600))

            var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            bytes += try [UInt8](Data(contentsOf: URL(fileURLWithPath: path + "-wal")))
            for (secret, digest) in zip(secrets, digests) {
                #expect(!contains(bytes, Array(secret.utf8)), "\(secret.prefix(10))")
                #expect(contains(bytes, digest), "the digest of \(secret.prefix(10))")
            }
            #expect(contains(bytes, Array("sealed-opaque".utf8)))
        }
    }

    private func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { start in
            haystack[start..<(start + needle.count)].elementsEqual(needle)
        }
    }
}

extension AccountStoreSQLiteTests {
    /// A file of schema v1 (before sessions could be bound to the cookie, before imported hashes) is migrated forward
    /// at open, its sessions kept and not bound, its users without an imported hash.
    @Test func aVersionOneFileIsMigratedForward() async throws {
        try await withStoreTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("accounts.sqlite").path
            do {
                // A file as version 1 left it: made now, then its version-2 and -3 columns dropped (SQLite 3.35+).
                _ = try SQLiteAccountStore(path: path)
                let connection = try SQLiteConnection.open(path: path)
                try connection.execute(
                    "ALTER TABLE account_sessions DROP COLUMN cookie_bound;"
                        + "ALTER TABLE account_users DROP COLUMN legacy_password_hash;"
                        + "UPDATE schema_versions SET version = 1 WHERE owner = 'accounts';"
                        + "INSERT INTO account_users VALUES ('u1', NULL, NULL, 0, NULL, NULL, NULL, 1, 0, NULL, 0, NULL, 0);"
                        + "INSERT INTO account_sessions VALUES ('s1', 'u1', 'password', 0, 0, 0, NULL);",
                    operation: "test: a version 1 file")
            }
            let store = try SQLiteAccountStore(path: path)
            #expect(try await store.session(id: "s1")?.cookieBound == false)
            try await store.bindSessionToCookie(id: "s1")
            #expect(try await store.session(id: "s1")?.cookieBound == true)
            let localID = try #require(LocalID("u1"))
            #expect(try await store.user(localID: localID)?.legacyPasswordHash == nil)
            let upgraded = try await store.modifyUser(localID: localID) { $0.legacyPasswordHash = "$2b$04$x" }
            #expect(upgraded?.legacyPasswordHash == "$2b$04$x")
            #expect(try await store.user(localID: localID) == upgraded)
        }
    }
}
