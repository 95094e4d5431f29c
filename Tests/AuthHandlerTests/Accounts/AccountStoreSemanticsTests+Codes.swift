import Foundation
import TestSupport
import Testing

@testable import AuthHandlerAccounts
@testable import AuthHandlerStore

/// One-time codes, pending credentials, expiry and counters of every `AccountStore` engine.
extension AccountStoreSemanticsTests {
    /// A GET of an action page peeks; only the POST takes, once (docs/ACCOUNTS.md "Storage", "One-time use").
    @Test(arguments: AccountStoreKind.allCases)
    func aCodeIsPeekedFreelyAndTakenOnce(kind: AccountStoreKind) async throws {
        try await withAccountStore(kind) { store in
            let start = Fixture.start
            let alice = try Fixture.user("alice")
            try await store.insertUser(alice, identity: nil)
            let code = try Fixture.code("change", of: alice.localID, kind: .verifyAndChangeEmail, expiresAt: start + 60)
            try await store.insertCode(code)
            #expect(try await store.peekCode(digest: code.digest, now: start) == code)
            #expect(try await store.peekCode(digest: code.digest, now: start + 59) == code)
            #expect(try await store.peekCode(digest: code.digest, now: start + 60) == nil)
            #expect(try await store.takeCode(digest: code.digest, now: start + 60) == nil)
            #expect(try await store.takeCode(digest: code.digest, now: start + 1) == code)
            #expect(try await store.takeCode(digest: code.digest, now: start + 1) == nil)
            #expect(try await store.peekCode(digest: code.digest, now: start + 1) == nil)

            for kind in OneTimeCodeKind.allCases {
                let record = try Fixture.code("code-\(kind)", of: alice.localID, kind: kind)
                try await store.insertCode(record)
                #expect(try await store.peekCode(digest: record.digest, now: start) == record)
            }
            let duplicate = await accountStoreError {
                try await store.insertCode(try Fixture.code("code-verifyEmail", of: alice.localID))
            }
            #expect(duplicate?.kind == .conflict)
            let orphan = await accountStoreError {
                try await store.insertCode(try Fixture.code("orphan", of: try Fixture.localID("nobody")))
            }
            #expect(orphan?.kind == .notFound)

            let bob = try Fixture.user("bob")
            try await store.insertUser(bob, identity: nil)
            try await store.insertCode(try Fixture.code("bob", of: bob.localID))
            #expect(try await store.deleteCodes(of: alice.localID) == OneTimeCodeKind.allCases.count)
            #expect(try await store.peekCode(digest: try Fixture.digest("code-resetPassword"), now: start) == nil)
            #expect(try await store.peekCode(digest: try Fixture.digest("bob"), now: start) != nil)
        }
    }

    @Test(arguments: AccountStoreKind.allCases)
    func concurrentTakersOfACodeOneWins(kind: AccountStoreKind) async throws {
        try await withAccountStore(kind) { store in
            let alice = try Fixture.user("alice")
            try await store.insertUser(alice, identity: nil)
            let code = try Fixture.code("race", of: alice.localID)
            try await store.insertCode(code)
            let pending = PendingCredentialRecord(
                digest: try Fixture.digest("pc-race"), localID: alice.localID, expiresAt: Fixture.start + 600)
            try await store.insertPendingCredential(pending)
            let (codes, credentials) = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        let code = try await store.takeCode(digest: code.digest, now: Fixture.start)
                        let credential = try await store.takePendingCredential(
                            digest: pending.digest, now: Fixture.start)
                        return (code == nil ? 0 : 1, credential == nil ? 0 : 1)
                    }
                }
                var totals = (0, 0)
                for try await (code, credential) in group {
                    totals.0 += code
                    totals.1 += credential
                }
                return totals
            }
            #expect(codes == 1)
            #expect(credentials == 1)
        }
    }

    @Test(arguments: AccountStoreKind.allCases)
    func aPendingCredentialIsTakenOnceBeforeItExpires(kind: AccountStoreKind) async throws {
        try await withAccountStore(kind) { store in
            let start = Fixture.start
            let alice = try Fixture.user("alice")
            let bob = try Fixture.user("bob")
            for user in [alice, bob] { try await store.insertUser(user, identity: nil) }
            let credential = PendingCredentialRecord(
                digest: try Fixture.digest("pc-1"), localID: alice.localID, expiresAt: start + 600)
            try await store.insertPendingCredential(credential)
            #expect(try await store.takePendingCredential(digest: credential.digest, now: start + 600) == nil)
            #expect(try await store.takePendingCredential(digest: credential.digest, now: start + 599) == credential)
            #expect(try await store.takePendingCredential(digest: credential.digest, now: start + 1) == nil)

            let duplicate = PendingCredentialRecord(
                digest: try Fixture.digest("pc-2"), localID: alice.localID, expiresAt: start + 600)
            try await store.insertPendingCredential(duplicate)
            let again = await accountStoreError {
                try await store.insertPendingCredential(duplicate)
            }
            #expect(again?.kind == .conflict)
            let orphan = await accountStoreError {
                try await store.insertPendingCredential(
                    PendingCredentialRecord(
                        digest: try Fixture.digest("pc-3"), localID: try Fixture.localID("nobody"), expiresAt: start))
            }
            #expect(orphan?.kind == .notFound)

            let bobs = PendingCredentialRecord(
                digest: try Fixture.digest("pc-bob"), localID: bob.localID, expiresAt: start + 600)
            try await store.insertPendingCredential(bobs)
            #expect(try await store.deletePendingCredentials(of: alice.localID) == 1)
            #expect(try await store.takePendingCredential(digest: duplicate.digest, now: start) == nil)
            #expect(try await store.takePendingCredential(digest: bobs.digest, now: start) == bobs)
        }
    }

    /// The sweep removes what has expired or ended and nothing else.
    @Test(arguments: AccountStoreKind.allCases)
    func sweepRemovesWhatEnded(kind: AccountStoreKind) async throws {
        let clock = TestClock(Fixture.start)
        try await withAccountStore(kind, clock: clock) { store in
            let start = Fixture.start
            let alice = try Fixture.user("alice")
            try await store.insertUser(alice, identity: nil)
            try await store.insertCode(try Fixture.code("old", of: alice.localID, expiresAt: start + 10))
            try await store.insertCode(try Fixture.code("new", of: alice.localID, expiresAt: start + 100))
            for (name, expiresAt) in [("old", start + 10), ("new", start + 100)] {
                try await store.insertPendingCredential(
                    PendingCredentialRecord(
                        digest: try Fixture.digest("pc-\(name)"), localID: alice.localID, expiresAt: expiresAt))
            }
            _ = try await store.incrementCounter(key: "old", window: .seconds(10))
            clock.advance(by: 5)
            _ = try await store.incrementCounter(key: "new", window: .seconds(100))
            // Revoked, idle since 40, signed in at 0 (past the absolute limit of 30), and one live.
            let sessions: [(String, AccountSession)] = [
                ("revoked", Fixture.session("revoked", of: alice.localID, at: start + 40)),
                ("idle", Fixture.session("idle", of: alice.localID, at: start + 31)),
                ("ancient", Fixture.session("ancient", of: alice.localID, at: start)),
                ("live", Fixture.session("live", of: alice.localID, at: start + 40)),
            ]
            for (name, var session) in sessions {
                if name == "ancient" { session.lastRefreshAt = start + 49 }
                try await store.insertSession(session, firstToken: try Fixture.token("rt-\(name)", session: name))
            }
            #expect(try await store.revokeSession(id: "revoked", at: start + 45))

            let removed = try await store.sweep(now: start + 50, idleSince: start + 40, signedInBefore: start + 30)
            // A code, a pending credential, a counter and three sessions (their tokens uncounted).
            #expect(removed == 6)
            #expect(try await store.peekCode(digest: try Fixture.digest("new"), now: start) != nil)
            #expect(try await store.peekCode(digest: try Fixture.digest("old"), now: start) == nil)
            #expect(try await store.takePendingCredential(digest: try Fixture.digest("pc-old"), now: start) == nil)
            #expect(try await store.takePendingCredential(digest: try Fixture.digest("pc-new"), now: start) != nil)
            for name in ["revoked", "idle", "ancient"] {
                #expect(try await store.session(id: name) == nil, "\(name)")
                #expect(try await store.refreshToken(digest: try Fixture.digest("rt-\(name)")) == nil, "\(name)")
            }
            #expect(try await store.session(id: "live") != nil)
            #expect(try await store.refreshToken(digest: try Fixture.digest("rt-live")) != nil)
            // The live counter kept its count; the expired one starts over.
            #expect(try await store.incrementCounter(key: "new", window: .seconds(100)).count == 2)
            #expect(try await store.sweep(now: start + 50, idleSince: start + 40, signedInBefore: start + 30) == 0)
        }
    }

    @Test(arguments: AccountStoreKind.allCases)
    func countersCountInFixedWindows(kind: AccountStoreKind) async throws {
        let clock = TestClock(Fixture.start)
        try await withAccountStore(kind, clock: clock) { store in
            #expect(
                try await store.incrementCounter(key: "k", window: .seconds(60))
                    == CounterReading(count: 1, remaining: .seconds(60)))
            clock.advance(by: 20)
            #expect(
                try await store.incrementCounter(key: "k", window: .seconds(60))
                    == CounterReading(count: 2, remaining: .seconds(40)))
            #expect(try await store.incrementCounter(key: "other", window: .seconds(60)).count == 1)
            try await store.decrementCounter(key: "k")
            #expect(try await store.incrementCounter(key: "k", window: .seconds(60)).count == 2)
            clock.advance(by: 40)
            #expect(
                try await store.incrementCounter(key: "k", window: .seconds(60))
                    == CounterReading(count: 1, remaining: .seconds(60)))
        }
    }
}
