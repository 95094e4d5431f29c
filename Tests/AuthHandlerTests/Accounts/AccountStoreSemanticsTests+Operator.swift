import Foundation
import TestSupport
import Testing

@testable import AuthHandlerAccounts
@testable import AuthHandlerStore

/// What the operator's `auth-handler accounts` needs of every `AccountStore` engine: a change to a user made in one
/// transaction, and the count of its live sessions.
extension AccountStoreSemanticsTests {
    @Test(arguments: AccountStoreKind.allCases)
    func modifyUserWritesTheChangeOfTheStoredRecord(kind: AccountStoreKind) async throws {
        try await withAccountStore(kind) { store in
            let alice = try Fixture.user("alice", email: "alice@example.com")
            let bob = try Fixture.user("bob", email: "bob@example.com")
            for user in [alice, bob] { try await store.insertUser(user, identity: nil) }
            // A write by someone else after the caller read the user: the change applies to what is stored now.
            var signedIn = alice
            signedIn.lastSignInAt = Fixture.start + 500
            try await store.updateUser(signedIn)

            let changed = try await store.modifyUser(localID: alice.localID) { user in
                user.disabled = true
                user.validSince = Fixture.start + 600
            }
            var expected = signedIn
            expected.disabled = true
            expected.validSince = Fixture.start + 600
            #expect(changed == expected)
            #expect(try await store.user(localID: alice.localID) == expected)
            #expect(try await store.user(localID: bob.localID) == bob)

            #expect(try await store.modifyUser(localID: try Fixture.localID("nobody")) { $0.disabled = true } == nil)
            let taken = await accountStoreError {
                _ = try await store.modifyUser(localID: alice.localID) { $0.normalizedEmail = "bob@example.com" }
            }
            #expect(taken?.kind == .constraint("email"))
            let renamed = await accountStoreError {
                let other = try Fixture.localID("other")
                _ = try await store.modifyUser(localID: alice.localID) { $0.localID = other }
            }
            #expect(renamed?.kind == .constraint("user"))
            // Neither refusal wrote anything.
            #expect(try await store.user(localID: alice.localID) == expected)
        }
    }

    @Test(arguments: AccountStoreKind.allCases)
    func liveSessionCountLeavesOutEndedSessions(kind: AccountStoreKind) async throws {
        try await withAccountStore(kind) { store in
            let start = Fixture.start
            let alice = try Fixture.user("alice")
            let bob = try Fixture.user("bob")
            for user in [alice, bob] { try await store.insertUser(user, identity: nil) }
            let sessions: [(String, AccountUser, AccountSession)] = [
                ("live", alice, Fixture.session("live", of: alice.localID, at: start + 100)),
                ("revoked", alice, Fixture.session("revoked", of: alice.localID, at: start + 100)),
                // Refreshed last at start + 10: idle when idleSince is later.
                ("idle", alice, Fixture.session("idle", of: alice.localID, at: start + 10)),
                ("bob", bob, Fixture.session("bob", of: bob.localID, at: start + 100)),
            ]
            for (id, _, session) in sessions {
                try await store.insertSession(session, firstToken: try Fixture.token("rt-\(id)", session: id))
            }
            _ = try await store.revokeSession(id: "revoked", at: start + 200)
            // Signed in long ago but refreshed since: past the absolute limit when signedInSince is later.
            var old = Fixture.session("old", of: alice.localID, at: start)
            old.lastRefreshAt = start + 150
            try await store.insertSession(old, firstToken: try Fixture.token("rt-old", session: "old"))

            #expect(try await store.liveSessionCount(of: alice.localID, idleSince: start, signedInSince: start) == 3)
            #expect(
                try await store.liveSessionCount(of: alice.localID, idleSince: start + 50, signedInSince: start) == 2)
            #expect(
                try await store.liveSessionCount(of: alice.localID, idleSince: start + 50, signedInSince: start + 50)
                    == 1)
            #expect(try await store.liveSessionCount(of: bob.localID, idleSince: start, signedInSince: start) == 1)

            // A valid-since after the sign-ins ends them all, revoked or not.
            _ = try await store.modifyUser(localID: alice.localID) { $0.validSince = start + 300 }
            #expect(try await store.liveSessionCount(of: alice.localID, idleSince: start, signedInSince: start) == 0)
            #expect(try await store.liveSessionCount(of: bob.localID, idleSince: start, signedInSince: start) == 1)
            #expect(
                try await store.liveSessionCount(
                    of: try Fixture.localID("nobody"), idleSince: start, signedInSince: start) == 0)
        }
    }
}
