import Foundation
import TestSupport
import Testing

@testable import AuthHandlerAccounts
@testable import AuthHandlerStore

/// What `auth-handler accounts import` needs of every `AccountStore` engine (docs/ACCOUNTS.md "Imported users"): one
/// transaction that never overwrites, and an imported hash that every password change clears.
extension AccountStoreSemanticsTests {
    /// A user as an import brings it: a Firebase-style hash not yet upgraded, no argon2id hash.
    private func imported(_ name: String, email: String?) throws -> AccountUser {
        var user = try Fixture.user(name, email: email, password: false)
        user.legacyPasswordHash = "$firescrypt$ln=14,r=8,p=1$c2FsdA$aGFzaA"
        return user
    }

    @Test(arguments: AccountStoreKind.allCases)
    func importInsertsNewUsersAndSkipsStoredOnes(kind: AccountStoreKind) async throws {
        try await withAccountStore(kind) { store in
            let stored = try Fixture.user("stored", email: "stored@example.com")
            try await store.insertUser(stored, identity: nil)
            let alice = try imported("alice", email: "alice@example.com")
            let google = Fixture.identity("google.com", "2001", of: alice.localID)
            let twitter = Fixture.identity("twitter.com", "2002", of: alice.localID)
            // The file's version of the stored user differs: it is left as stored, its identity not linked.
            var stale = try imported("stored", email: "other@example.com")
            stale.displayName = "Stale"
            let batch = [
                AccountImport(user: alice, identities: [google, twitter]),
                AccountImport(user: stale, identities: [Fixture.identity("github.com", "9", of: stale.localID)]),
                AccountImport(user: try imported("bare", email: nil)),
            ]
            #expect(try await store.importUsers(batch) == .imported(inserted: 2, skipped: 1))
            #expect(try await store.user(localID: alice.localID) == alice)
            #expect(try await store.identities(of: alice.localID) == [google, twitter])
            #expect(try await store.user(localID: stored.localID) == stored)
            #expect(try await store.identities(of: stored.localID) == [])
            #expect(try await store.identity(providerID: "github.com", providerUserID: "9") == nil)

            // The same file again changes nothing.
            #expect(try await store.importUsers(batch) == .imported(inserted: 0, skipped: 3))
            #expect(try await store.user(localID: alice.localID) == alice)
            #expect(try await store.importUsers([]) == .imported(inserted: 0, skipped: 0))
        }
    }

    @Test(arguments: AccountStoreKind.allCases)
    func importRefusesTheWholeBatchForOneBadRow(kind: AccountStoreKind) async throws {
        try await withAccountStore(kind) { store in
            let stored = try Fixture.user("stored", email: "stored@example.com")
            try await store.insertUser(stored, identity: Fixture.identity("google.com", "1", of: stored.localID))
            let first = try imported("first", email: "first@example.com")
            let good = AccountImport(user: first)
            func row(_ name: String, email: String? = nil, identities: [(String, String)] = []) throws -> AccountImport
            {
                let user = try imported(name, email: email)
                return AccountImport(
                    user: user, identities: identities.map { Fixture.identity($0.0, $0.1, of: user.localID) })
            }
            let cases: [([AccountImport], AccountImportResult)] = [
                ([good, try row("taken", email: "stored@example.com")], .refused(index: 1, field: "email")),
                ([good, try row("twin", email: "first@example.com")], .refused(index: 1, field: "email")),
                ([good, try row("linked", identities: [("google.com", "1")])], .refused(index: 1, field: "identity")),
                (
                    [try row("a", identities: [("github.com", "7")]), try row("b", identities: [("github.com", "7")])],
                    .refused(index: 1, field: "identity")
                ),
                (
                    [good, try row("two", identities: [("github.com", "7"), ("github.com", "8")])],
                    .refused(index: 1, field: "provider")
                ),
                ([good, good], .refused(index: 1, field: "localId")),
                (
                    [
                        good,
                        AccountImport(
                            user: try imported("x", email: nil),
                            identities: [
                                Fixture.identity("github.com", "5", of: stored.localID)
                            ]),
                    ],
                    .refused(index: 1, field: "user")
                ),
            ]
            for (batch, refusal) in cases {
                #expect(try await store.importUsers(batch) == refusal)
                // Nothing was written, not even the good row before the bad one.
                #expect(try await store.user(localID: first.localID) == nil)
            }
            #expect(try await store.listUsers(after: nil, limit: 10) == [stored])
        }
    }

    @Test(arguments: AccountStoreKind.allCases)
    func passwordChangesClearTheImportedHash(kind: AccountStoreKind) async throws {
        try await withAccountStore(kind) { store in
            let alice = try imported("alice", email: "alice@example.com")
            let bob = try imported("bob", email: "bob@example.com")
            #expect(
                try await store.importUsers([AccountImport(user: alice), AccountImport(user: bob)])
                    == .imported(inserted: 2, skipped: 0))
            let reset = try await store.resetPassword(
                localID: alice.localID, passwordHash: "$argon2id$new", provesAddress: false, at: Fixture.start + 9)
            #expect(reset.legacyPasswordHash == nil)
            #expect(reset.passwordHash == "$argon2id$new")
            #expect(try await store.user(localID: alice.localID) == reset)

            let taken = try await store.takeOver(
                localID: bob.localID, identity: Fixture.identity("google.com", "3", of: bob.localID),
                at: Fixture.start + 9)
            #expect(taken.legacyPasswordHash == nil)
            #expect(!taken.hasPassword)
        }
    }
}
