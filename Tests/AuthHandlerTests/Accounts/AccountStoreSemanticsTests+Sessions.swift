import Foundation
import TestSupport
import Testing

@testable import AuthHandlerAccounts
@testable import AuthHandlerStore

/// Take-over, sessions and refresh-token rotation of every `AccountStore` engine.
extension AccountStoreSemanticsTests {
    /// docs/ACCOUNTS.md "Storage", "Take-over": a provider's verified identity takes a never-verified password account over, in one step.
    @Test(arguments: AccountStoreKind.allCases)
    func takeOverLeavesOnlyTheProvidersIdentity(kind: AccountStoreKind) async throws {
        try await withAccountStore(kind) { store in
            let start = Fixture.start
            let victim = try Fixture.user("victim", email: "victim@example.com")
            try await store.insertUser(victim, identity: Fixture.identity("github.com", "attacker", of: victim.localID))
            try await store.linkIdentity(Fixture.identity("facebook.com", "attacker", of: victim.localID))
            for sid in ["sid-1", "sid-2"] {
                try await store.insertSession(
                    Fixture.session(sid, of: victim.localID), firstToken: try Fixture.token("rt-\(sid)", session: sid))
            }
            try await store.insertCode(try Fixture.code("code-1", of: victim.localID))
            try await store.insertCode(try Fixture.code("code-2", of: victim.localID, kind: .verifyEmail))
            let pending = PendingCredentialRecord(
                digest: try Fixture.digest("pc-1"), localID: victim.localID, expiresAt: start + 600)
            try await store.insertPendingCredential(pending)
            let other = try Fixture.user("other", email: "other@example.com")
            try await store.insertUser(other, identity: Fixture.identity("google.com", "other", of: other.localID))

            // An identity of another user is refused, and nothing of the victim changes.
            let refused = await accountStoreError {
                _ = try await store.takeOver(
                    localID: victim.localID, identity: Fixture.identity("google.com", "other", of: victim.localID),
                    at: start + 50)
            }
            #expect(refused?.kind == .constraint("identity"))
            #expect(try await store.user(localID: victim.localID) == victim)
            #expect(try await store.identities(of: victim.localID).count == 2)
            #expect(try await store.peekCode(digest: try Fixture.digest("code-1"), now: start) != nil)

            let google = Fixture.identity("google.com", "owner", of: victim.localID)
            let taken = try await store.takeOver(localID: victim.localID, identity: google, at: start + 100)
            var expected = victim
            expected.passwordHash = nil
            expected.passwordVersion = victim.passwordVersion + 1
            expected.validSince = start + 100
            expected.emailVerified = true
            #expect(taken == expected)
            #expect(try await store.user(localID: victim.localID) == expected)
            #expect(try await store.identities(of: victim.localID) == [google])
            #expect(try await store.identity(providerID: "github.com", providerUserID: "attacker") == nil)
            #expect(try await store.peekCode(digest: try Fixture.digest("code-1"), now: start) == nil)
            #expect(try await store.peekCode(digest: try Fixture.digest("code-2"), now: start) == nil)
            #expect(try await store.takePendingCredential(digest: pending.digest, now: start) == nil)
            #expect(try await store.session(id: "sid-1")?.revokedAt == start + 100)
            #expect(try await store.session(id: "sid-2")?.revokedAt == start + 100)
            // The other user is untouched.
            #expect(try await store.user(localID: other.localID) == other)

            let nobody = await accountStoreError {
                _ = try await store.takeOver(
                    localID: try Fixture.localID("nobody"),
                    identity: Fixture.identity("apple.com", "x", of: victim.localID), at: start)
            }
            #expect(nobody?.kind == .notFound)
        }
    }

    @Test(arguments: AccountStoreKind.allCases)
    func sessionsAreRevokedAndTouched(kind: AccountStoreKind) async throws {
        try await withAccountStore(kind) { store in
            let start = Fixture.start
            let alice = try Fixture.user("alice")
            let bob = try Fixture.user("bob")
            for user in [alice, bob] { try await store.insertUser(user, identity: nil) }
            for (sid, user) in [("a1", alice), ("a2", alice), ("a3", alice), ("b1", bob)] {
                try await store.insertSession(
                    Fixture.session(sid, of: user.localID), firstToken: try Fixture.token("rt-\(sid)", session: sid))
            }
            #expect(try await store.session(id: "a1") == Fixture.session("a1", of: alice.localID))
            #expect(
                try await store.refreshToken(digest: try Fixture.digest("rt-a1"))
                    == (try Fixture.token("rt-a1", session: "a1")))
            #expect(try await store.session(id: "zz") == nil)

            #expect(try await store.revokeSession(id: "a3", at: start + 10))
            #expect(try await !store.revokeSession(id: "a3", at: start + 20))
            #expect(try await store.session(id: "a3")?.revokedAt == start + 10)
            #expect(try await !store.revokeSession(id: "zz", at: start))
            // Only live sessions of this user but the one kept: a1 (a3 was revoked, a2 kept, b1 is Bob's).
            #expect(try await store.revokeSessions(of: alice.localID, except: "a2", at: start + 30) == 1)
            #expect(try await store.session(id: "a1")?.revokedAt == start + 30)
            #expect(try await store.session(id: "a2")?.revokedAt == nil)
            #expect(try await store.session(id: "a3")?.revokedAt == start + 10)
            #expect(try await store.session(id: "b1")?.revokedAt == nil)
            #expect(try await store.revokeSessions(of: alice.localID, except: nil, at: start + 40) == 1)
            #expect(try await store.session(id: "a2")?.revokedAt == start + 40)

            try await store.setAuthTime(sessionID: "b1", start + 50)
            var b1 = Fixture.session("b1", of: bob.localID)
            b1.authTime = start + 50
            #expect(try await store.session(id: "b1") == b1)
            let noAuthTime = await accountStoreError {
                try await store.setAuthTime(sessionID: "zz", start)
            }
            #expect(noAuthTime?.kind == .notFound)
        }
    }

    @Test(arguments: AccountStoreKind.allCases)
    func sessionInsertNeedsAUserAndNewKeys(kind: AccountStoreKind) async throws {
        try await withAccountStore(kind) { store in
            let alice = try Fixture.user("alice")
            try await store.insertUser(alice, identity: nil)
            try await store.insertSession(
                Fixture.session("s1", of: alice.localID), firstToken: try Fixture.token("rt-1", session: "s1"))
            let cases: [(AccountSession, RefreshTokenRecord, StoreError.Kind)] = [
                (
                    Fixture.session("s2", of: try Fixture.localID("nobody")), try Fixture.token("rt-2", session: "s2"),
                    .notFound
                ),
                (Fixture.session("s1", of: alice.localID), try Fixture.token("rt-3", session: "s1"), .conflict),
                (Fixture.session("s4", of: alice.localID), try Fixture.token("rt-1", session: "s4"), .conflict),
            ]
            for (session, token, expected) in cases {
                let error = await accountStoreError {
                    try await store.insertSession(session, firstToken: token)
                }
                #expect(error?.kind == expected, "\(session.id)")
            }
            // A first token of another session is refused.
            let mismatch = await accountStoreError {
                try await store.insertSession(
                    Fixture.session("s5", of: alice.localID), firstToken: try Fixture.token("rt-5", session: "s1"))
            }
            #expect(mismatch?.kind == .constraint("session"))
            #expect(try await store.session(id: "s5") == nil)
            #expect(try await store.session(id: "s2") == nil)
            #expect(try await store.session(id: "s4") == nil)
            #expect(try await store.refreshToken(digest: try Fixture.digest("rt-3")) == nil)
            #expect(try await store.refreshToken(digest: try Fixture.digest("rt-1"))?.sessionID == "s1")
        }
    }

    /// docs/ACCOUNTS.md "Storage", "One successor per refresh token": each token has exactly one successor, fixed at its first use.
    @Test(arguments: AccountStoreKind.allCases)
    func aTokenHasOneSuccessor(kind: AccountStoreKind) async throws {
        try await withAccountStore(kind) { store in
            let start = Fixture.start
            let alice = try Fixture.user("alice")
            try await store.insertUser(alice, identity: nil)
            try await store.insertSession(
                Fixture.session("s1", of: alice.localID), firstToken: try Fixture.token("rt-1", session: "s1"))
            let first = try Fixture.digest("rt-1")
            let second = try Fixture.digest("rt-2")
            let sealed: [UInt8] = [1, 2, 3, 4]
            #expect(
                try await store.rotateRefreshToken(
                    digest: first, successorDigest: second, sealedSuccessor: sealed, at: start + 10)
                    == .rotated)
            let used = RefreshTokenRecord(
                digest: first, sessionID: "s1", issuedAt: start, firstUsedAt: start + 10, successorDigest: second,
                sealedSuccessor: sealed)
            #expect(try await store.refreshToken(digest: first) == used)
            #expect(
                try await store.refreshToken(digest: second)
                    == RefreshTokenRecord(digest: second, sessionID: "s1", issuedAt: start + 10))
            // The rotation touched its session in the same transaction.
            #expect(try await store.session(id: "s1")?.lastRefreshAt == start + 10)

            // Presented again: the same successor, nothing changed.
            let again = try await store.rotateRefreshToken(
                digest: first, successorDigest: try Fixture.digest("rt-other"), sealedSuccessor: [9], at: start + 20)
            #expect(again == .alreadyRotated(used, successorUsed: false))
            #expect(try await store.refreshToken(digest: first) == used)
            #expect(try await store.session(id: "s1")?.lastRefreshAt == start + 10)
            #expect(try await store.refreshToken(digest: try Fixture.digest("rt-other")) == nil)

            // Once the successor is used, a re-presentation of the first says so.
            let third = try Fixture.digest("rt-3")
            #expect(
                try await store.rotateRefreshToken(
                    digest: second, successorDigest: third, sealedSuccessor: [5], at: start + 30)
                    == .rotated)
            #expect(
                try await store.rotateRefreshToken(
                    digest: first, successorDigest: third, sealedSuccessor: [], at: start + 40)
                    == .alreadyRotated(used, successorUsed: true))

            let unknown = await accountStoreError {
                _ = try await store.rotateRefreshToken(
                    digest: try Fixture.digest("rt-none"), successorDigest: try Fixture.digest("rt-9"),
                    sealedSuccessor: [], at: start)
            }
            #expect(unknown?.kind == .notFound)
            // A successor digest that exists is refused, and the token stays unused.
            let clash = await accountStoreError {
                _ = try await store.rotateRefreshToken(
                    digest: third, successorDigest: first, sealedSuccessor: [], at: start)
            }
            #expect(clash?.kind == .conflict)
            #expect(try await store.refreshToken(digest: third)?.firstUsedAt == nil)
        }
    }

    /// Many concurrent rotations of one token: exactly one rotates, every other gets that one's successor.
    @Test(arguments: AccountStoreKind.allCases)
    func concurrentRotationsYieldOneSuccessor(kind: AccountStoreKind) async throws {
        try await withAccountStore(kind) { store in
            let alice = try Fixture.user("alice")
            try await store.insertUser(alice, identity: nil)
            try await store.insertSession(
                Fixture.session("s1", of: alice.localID), firstToken: try Fixture.token("rt", session: "s1"))
            let token = try Fixture.digest("rt")
            let outcomes = try await withThrowingTaskGroup(of: ([UInt8], RefreshTokenRotation).self) { group in
                for index in 0..<50 {
                    let successor = try Fixture.digest("rt-\(index)")
                    group.addTask {
                        let outcome = try await store.rotateRefreshToken(
                            digest: token, successorDigest: successor, sealedSuccessor: [UInt8(index)],
                            at: Fixture.start + 1)
                        return (successor, outcome)
                    }
                }
                var outcomes: [([UInt8], RefreshTokenRotation)] = []
                for try await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
            let winners = outcomes.filter { $0.1 == .rotated }
            #expect(winners.count == 1)
            let winner = try #require(winners.first?.0)
            let stored = try #require(try await store.refreshToken(digest: token))
            #expect(stored.successorDigest == winner)
            for (_, outcome) in outcomes where outcome != .rotated {
                #expect(outcome == .alreadyRotated(stored, successorUsed: false))
            }
            // The losers' successors were never stored.
            for (successor, _) in outcomes {
                #expect(try await (store.refreshToken(digest: successor) != nil) == (successor == winner))
            }
        }
    }
}

extension AccountStoreSemanticsTests {
    /// HTTP-API.md §3.10: a session started in cookie mode is marked so, and the mark is read back.
    @Test(arguments: AccountStoreKind.allCases)
    func sessionsAreBoundToTheCookie(kind: AccountStoreKind) async throws {
        try await withAccountStore(kind) { store in
            let user = try Fixture.user("browser", email: "browser@example.com")
            try await store.insertUser(user, identity: nil)
            try await store.insertSession(
                Fixture.session("sid-c", of: user.localID), firstToken: try Fixture.token("rt-c", session: "sid-c"))
            #expect(try await store.session(id: "sid-c")?.cookieBound == false)
            try await store.bindSessionToCookie(id: "sid-c")
            #expect(try await store.session(id: "sid-c")?.cookieBound == true)
            let missing = await accountStoreError { try await store.bindSessionToCookie(id: "sid-none") }
            #expect(missing?.kind == .notFound)
        }
    }
}

extension AccountStoreSemanticsTests {
    /// docs/ACCOUNTS.md "E-mail actions": a reset is one step — the new hash, the version bumped, every session ended,
    /// pending credentials gone, the address verified; a reset that proves a never-verified address also removes
    /// every identity. A verified account keeps its identities.
    @Test(arguments: AccountStoreKind.allCases)
    func resetPasswordIsOneStep(kind: AccountStoreKind) async throws {
        try await withAccountStore(kind) { store in
            let start = Fixture.start
            let unverified = try Fixture.user("pre", email: "pre@example.com")
            try await store.insertUser(
                unverified, identity: Fixture.identity("github.com", "planted", of: unverified.localID))
            try await store.insertSession(
                Fixture.session("sid-r", of: unverified.localID),
                firstToken: try Fixture.token("rt-r", session: "sid-r"))
            let pending = PendingCredentialRecord(
                digest: try Fixture.digest("pc-r"), localID: unverified.localID, expiresAt: start + 600)
            try await store.insertPendingCredential(pending)

            let reset = try await store.resetPassword(
                localID: unverified.localID, passwordHash: "$argon2id$v=19$new", provesAddress: true, at: start + 50)
            #expect(reset.passwordHash == "$argon2id$v=19$new")
            #expect(reset.passwordVersion == unverified.passwordVersion + 1)
            #expect(reset.validSince == start + 50 && reset.emailVerified)
            #expect(try await store.user(localID: unverified.localID) == reset)
            #expect(try await store.identities(of: unverified.localID).isEmpty)
            #expect(try await store.session(id: "sid-r")?.revokedAt == start + 50)
            #expect(try await store.takePendingCredential(digest: pending.digest, now: start) == nil)

            var verified = try Fixture.user("owner", email: "owner@example.com")
            verified.emailVerified = true
            try await store.insertUser(
                verified, identity: Fixture.identity("google.com", "owner", of: verified.localID))
            _ = try await store.resetPassword(
                localID: verified.localID, passwordHash: "$argon2id$v=19$other", provesAddress: false, at: start + 60)
            #expect(try await store.identities(of: verified.localID).count == 1)

            let missing = await accountStoreError {
                _ = try await store.resetPassword(
                    localID: try Fixture.localID("nobody"), passwordHash: "x", provesAddress: false, at: start)
            }
            #expect(missing?.kind == .notFound)
        }
    }
}
