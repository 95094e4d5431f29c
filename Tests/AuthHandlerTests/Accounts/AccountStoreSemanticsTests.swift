import Foundation
import TestSupport
import Testing

@testable import AuthHandlerAccounts
@testable import AuthHandlerStore

/// What every `AccountStore` engine must do (docs/ACCOUNTS.md "Storage"), written against the protocol and run for each
/// engine of `AccountStoreKind`.
struct AccountStoreSemanticsTests {
    typealias Fixture = AccountFixture

    // MARK: Users and identities

    @Test(arguments: AccountStoreKind.allCases)
    func userIsFoundByIDEmailAndIdentity(kind: AccountStoreKind) async throws {
        try await withAccountStore(kind) { store in
            let alice = try Fixture.user("alice", email: "Alice@Example.com")
            let google = Fixture.identity("google.com", "1001", of: alice.localID)
            try await store.insertUser(alice, identity: google)
            #expect(try await store.user(localID: alice.localID) == alice)
            #expect(try await store.user(normalizedEmail: "alice@example.com") == alice)
            #expect(try await store.user(normalizedEmail: "Alice@Example.com") == nil)
            #expect(try await store.identity(providerID: "google.com", providerUserID: "1001") == google)
            #expect(try await store.identity(providerID: "facebook.com", providerUserID: "1001") == nil)
            #expect(try await store.identities(of: alice.localID) == [google])
            #expect(try await store.user(localID: try Fixture.localID("nobody")) == nil)

            // Absent members come back absent, not empty.
            var bare = try Fixture.user("bare", password: false)
            bare.displayName = nil
            bare.photoURL = nil
            bare.customClaims = nil
            bare.lastSignInAt = nil
            try await store.insertUser(bare, identity: nil)
            #expect(try await store.user(localID: bare.localID) == bare)
            #expect(try await store.identities(of: bare.localID) == [])
        }
    }

    @Test(arguments: AccountStoreKind.allCases)
    func normalizedEmailIsUnique(kind: AccountStoreKind) async throws {
        try await withAccountStore(kind) { store in
            let alice = try Fixture.user("alice", email: "alice@example.com")
            try await store.insertUser(alice, identity: nil)
            var twin = try Fixture.user("twin", email: "ALICE@example.com")
            let inserted = await accountStoreError {
                try await store.insertUser(twin, identity: nil)
            }
            #expect(inserted?.kind == .constraint("email"))
            #expect(try await store.user(localID: twin.localID) == nil)

            // Users without an e-mail do not collide with each other.
            twin.email = nil
            twin.normalizedEmail = nil
            try await store.insertUser(twin, identity: nil)
            try await store.insertUser(try Fixture.user("twitter", password: false), identity: nil)

            twin.email = "Alice@example.com"
            twin.normalizedEmail = "alice@example.com"
            let updated = await accountStoreError { try await store.updateUser(twin) }
            #expect(updated?.kind == .constraint("email"))
            #expect(try await store.user(localID: twin.localID)?.email == nil)

            // A user keeps its own address through an update.
            var renamed = alice
            renamed.displayName = "Alice A."
            try await store.updateUser(renamed)
            #expect(try await store.user(localID: alice.localID) == renamed)

            let again = await accountStoreError {
                try await store.insertUser(try Fixture.user("alice", email: "other@example.com"), identity: nil)
            }
            #expect(again?.kind == .conflict)
        }
    }

    @Test(arguments: AccountStoreKind.allCases)
    func updateWritesTheWholeRecord(kind: AccountStoreKind) async throws {
        try await withAccountStore(kind) { store in
            var user = try Fixture.user("alice", email: "alice@example.com")
            try await store.insertUser(user, identity: nil)
            user.email = "New@example.com"
            user.normalizedEmail = "new@example.com"
            user.emailVerified = true
            user.displayName = nil
            user.photoURL = nil
            user.passwordHash = nil
            user.passwordVersion = 7
            user.disabled = true
            user.customClaims = nil
            user.lastSignInAt = Fixture.start + 100
            user.validSince = Fixture.start + 200
            try await store.updateUser(user)
            #expect(try await store.user(localID: user.localID) == user)
            #expect(try await store.user(normalizedEmail: "alice@example.com") == nil)
            #expect(try await store.user(normalizedEmail: "new@example.com") == user)

            let missing = await accountStoreError {
                try await store.updateUser(try Fixture.user("nobody"))
            }
            #expect(missing?.kind == .notFound)
            #expect(try await store.user(localID: try Fixture.localID("nobody")) == nil)
        }
    }

    @Test(arguments: AccountStoreKind.allCases)
    func identityIsLinkedOncePerProviderAndPerUser(kind: AccountStoreKind) async throws {
        try await withAccountStore(kind) { store in
            let alice = try Fixture.user("alice", email: "alice@example.com")
            let bob = try Fixture.user("bob", email: "bob@example.com")
            try await store.insertUser(alice, identity: Fixture.identity("google.com", "1001", of: alice.localID))
            try await store.insertUser(bob, identity: nil)

            // Taken by another user, by this user, a second of one provider, a user that does not exist.
            for (identity, expected) in [
                (Fixture.identity("google.com", "1001", of: bob.localID), StoreError.Kind.constraint("identity")),
                (Fixture.identity("google.com", "1001", of: alice.localID), .constraint("identity")),
                (Fixture.identity("google.com", "2002", of: alice.localID), .constraint("provider")),
                (Fixture.identity("github.com", "3003", of: try Fixture.localID("nobody")), .notFound),
            ] {
                let error = await accountStoreError { try await store.linkIdentity(identity) }
                #expect(error?.kind == expected, "\(identity.providerID) \(identity.providerUserID)")
            }
            #expect(try await store.identities(of: bob.localID) == [])

            let facebook = Fixture.identity("facebook.com", "9", of: alice.localID)
            try await store.linkIdentity(facebook)
            let github = Fixture.identity("github.com", "1001", of: bob.localID)
            try await store.linkIdentity(github)
            #expect(try await store.identities(of: alice.localID).map(\.providerID) == ["facebook.com", "google.com"])

            // A user inserted with an identity someone has is not inserted at all.
            let carol = try Fixture.user("carol", email: "carol@example.com")
            let taken = await accountStoreError {
                try await store.insertUser(carol, identity: Fixture.identity("facebook.com", "9", of: carol.localID))
            }
            #expect(taken?.kind == .constraint("identity"))
            #expect(try await store.user(localID: carol.localID) == nil)
            #expect(try await store.user(normalizedEmail: "carol@example.com") == nil)
            // So is one whose first identity names another user.
            let foreign = await accountStoreError {
                try await store.insertUser(carol, identity: Fixture.identity("apple.com", "7", of: bob.localID))
            }
            #expect(foreign?.kind == .constraint("identity"))
            #expect(try await store.user(localID: carol.localID) == nil)
            #expect(try await store.identity(providerID: "apple.com", providerUserID: "7") == nil)

            #expect(try await store.unlinkIdentity(localID: alice.localID, providerID: "google.com"))
            #expect(try await !store.unlinkIdentity(localID: alice.localID, providerID: "google.com"))
            // Only the user's own identity is unlinked.
            #expect(try await !store.unlinkIdentity(localID: alice.localID, providerID: "github.com"))
            #expect(try await store.identities(of: bob.localID) == [github])
            // Once unlinked, the identity may go to another user.
            try await store.linkIdentity(Fixture.identity("google.com", "1001", of: bob.localID))
            #expect(try await store.identity(providerID: "google.com", providerUserID: "1001")?.localID == bob.localID)
        }
    }

    @Test(arguments: AccountStoreKind.allCases)
    func usersAreListedInPages(kind: AccountStoreKind) async throws {
        try await withAccountStore(kind) { store in
            let names = ["carol", "alice", "erin", "bob", "dave"]
            for name in names { try await store.insertUser(try Fixture.user(name), identity: nil) }
            let first = try await store.listUsers(after: nil, limit: 2)
            #expect(first.map(\.displayName) == ["User alice", "User bob"])
            let second = try await store.listUsers(after: first.last?.localID, limit: 2)
            #expect(second.map(\.displayName) == ["User carol", "User dave"])
            let third = try await store.listUsers(after: second.last?.localID, limit: 2)
            #expect(third.map(\.displayName) == ["User erin"])
            #expect(try await store.listUsers(after: third.last?.localID, limit: 2) == [])
            #expect(try await store.listUsers(after: nil, limit: 0) == [])
            #expect(try await store.listUsers(after: nil, limit: 100).count == names.count)
        }
    }

    /// `accounts export` reads a page's identities in one query: those of the users from the first through the last.
    @Test(arguments: AccountStoreKind.allCases)
    func identitiesOfAPageOfUsers(kind: AccountStoreKind) async throws {
        try await withAccountStore(kind) { store in
            for (index, name) in ["alice", "bob", "carol", "dave"].enumerated() {
                let user = try Fixture.user(name)
                try await store.insertUser(user, identity: Fixture.identity("google.com", "\(index)", of: user.localID))
                try await store.linkIdentity(Fixture.identity("apple.com", "\(index)", of: user.localID))
            }
            let page = try await store.listUsers(after: nil, limit: 100)
            try #require(page.count == 4)
            let middle = try await store.identities(localIDsFrom: page[1].localID, through: page[2].localID)
            let expected = [page[1].localID, page[1].localID, page[2].localID, page[2].localID]
            #expect(middle.map(\.localID) == expected)
            #expect(middle.map(\.providerID) == ["apple.com", "google.com", "apple.com", "google.com"])
            #expect(try await store.identities(localIDsFrom: page[0].localID, through: page[0].localID).count == 2)
            #expect(try await store.identities(localIDsFrom: page[3].localID, through: page[0].localID) == [])
        }
    }

    /// Deleting a user takes every row of it and leaves every other user's.
    @Test(arguments: AccountStoreKind.allCases)
    func deletingAUserDeletesEverythingOfIt(kind: AccountStoreKind) async throws {
        try await withAccountStore(kind) { store in
            let now = Fixture.start
            var digests: [String: [UInt8]] = [:]
            for name in ["alice", "bob"] {
                let user = try Fixture.user(name, email: "\(name)@example.com")
                try await store.insertUser(user, identity: Fixture.identity("google.com", name, of: user.localID))
                try await store.insertSession(
                    Fixture.session("sid-\(name)", of: user.localID),
                    firstToken: try Fixture.token("rt-\(name)", session: "sid-\(name)"))
                try await store.insertCode(try Fixture.code("code-\(name)", of: user.localID))
                try await store.insertPendingCredential(
                    PendingCredentialRecord(
                        digest: try Fixture.digest("pc-\(name)"), localID: user.localID, expiresAt: now + 600))
                digests[name] = try Fixture.digest("rt-\(name)")
            }
            let alice = try Fixture.localID("alice")
            #expect(try await store.deleteUser(localID: alice))
            #expect(try await !store.deleteUser(localID: alice))
            #expect(try await store.user(localID: alice) == nil)
            #expect(try await store.user(normalizedEmail: "alice@example.com") == nil)
            #expect(try await store.identity(providerID: "google.com", providerUserID: "alice") == nil)
            #expect(try await store.identities(of: alice) == [])
            #expect(try await store.session(id: "sid-alice") == nil)
            #expect(try await store.refreshToken(digest: try #require(digests["alice"])) == nil)
            #expect(try await store.peekCode(digest: try Fixture.digest("code-alice"), now: now) == nil)
            #expect(try await store.takePendingCredential(digest: try Fixture.digest("pc-alice"), now: now) == nil)

            let bob = try Fixture.localID("bob")
            #expect(try await store.user(localID: bob) != nil)
            #expect(try await store.identities(of: bob).count == 1)
            #expect(try await store.session(id: "sid-bob") != nil)
            #expect(try await store.refreshToken(digest: try #require(digests["bob"])) != nil)
            #expect(try await store.peekCode(digest: try Fixture.digest("code-bob"), now: now) != nil)
            #expect(try await store.takePendingCredential(digest: try Fixture.digest("pc-bob"), now: now) != nil)

            // The address and the identity are free again.
            let again = try Fixture.user("alice2", email: "alice@example.com")
            try await store.insertUser(again, identity: Fixture.identity("google.com", "alice", of: again.localID))
        }
    }
}
