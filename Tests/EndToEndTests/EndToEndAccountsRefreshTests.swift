import AuthHandlerHTTP
import Foundation
import TestSupport
import Testing

/// Refresh-token rotation (issue 25 §4 "Refresh", RFC 9700 §4.14.2, docs/ACCOUNTS.md "Refresh tokens and sessions")
/// through the real binary: each token has exactly one successor; a used token presented again gets that same one
/// within 10 s of its first use, or while the successor was never used and within `lostAnswerSeconds`; any other
/// reuse revokes the whole session.
@Suite(.serialized) struct EndToEndAccountsRefreshTests {
    /// The 10 s window for two tabs refreshing at once is fixed (docs/ACCOUNTS.md), so the test waits past it once.
    static let concurrentWindow: Duration = .seconds(10)

    /// A password sign-in's refresh token (each its own session).
    static func session(_ e2e: EndToEnd, _ email: String) async throws -> String {
        let password = "refresh passphrase for \(email)"
        let signUp = try await e2e.passwordSignUp(email, password)
        return try #require(signUp["refreshToken"]?.stringValue)
    }

    /// The successor `token` is answered, or nil with the refusal checked to be RFC 6749 §5.2's `invalid_grant`.
    static func successor(_ e2e: EndToEnd, _ token: String) async throws -> String? {
        let answer = try await e2e.refreshGrant(token)
        if answer.status == 200 { return try #require(answer.json?["refresh_token"]?.stringValue, "\(answer.text)") }
        #expect(answer.status == 400, "\(answer.text)")
        #expect(answer.json?["error"]?.stringValue == "invalid_grant", "\(answer.text)")
        return nil
    }

    @Test(
        "one successor per token: a reuse within 10 s gets the same one; after it, reuse revokes the session",
        arguments: AccountsDatabaseEngine.allCases)
    func oneSuccessorThenReuseRevokes(engine: AccountsDatabaseEngine) async throws {
        try await engine.run { try await oneSuccessorThenReuseRevokes() }
    }

    func oneSuccessorThenReuseRevokes() async throws {
        // Two daemons side by side so that one wait past the 10 s window serves both: the default lost-answer window
        // (300 s) and one of 1 s.
        let settings = [#""password": {"rateLimit": {"perMinute": 600, "burst": 50}}"#]
        let roomy = EndToEnd.Backend.accounts(members: settings[0])
        let short = EndToEnd.Backend.accounts(members: settings[0] + #", "refreshToken": {"lostAnswerSeconds": 1}"#)
        let e2e = try await EndToEnd.start(backend: roomy)
        try await withCleanup({ await e2e.stop() }) {
            let shortLived = try await EndToEnd.start(backend: short)
            try await withCleanup({ await shortLived.stop() }) {
                try await Self.check(e2e, shortLived)
            }
        }
    }

    static func check(_ e2e: EndToEnd, _ shortLived: EndToEnd) async throws {
        // Session A: two tabs present the first token at once, and again right after: one successor, no fork.
        let a1 = try await session(e2e, "a@example.com")
        async let tab1 = successor(e2e, a1)
        async let tab2 = successor(e2e, a1)
        let (first, second) = try await (tab1, tab2)
        let a2 = try #require(first)
        #expect(second == a2, "two concurrent uses of one token got different successors: the family forked")
        #expect(try await successor(e2e, a1) == a2)
        // The successor is used: A's second generation exists.
        let a3 = try #require(try await successor(e2e, a2))
        #expect(a3 != a2 && a3 != a1)

        // Session B: its successor is never used (the answer was lost).
        let b1 = try await session(e2e, "b@example.com")
        let b2 = try #require(try await successor(e2e, b1))
        // Session C, on the daemon whose lost-answer window is 1 s: its successor is never used either.
        let c1 = try await session(shortLived, "c@example.com")
        let c2 = try #require(try await successor(shortLived, c1))

        try await Task.sleep(for: concurrentWindow + .seconds(1))

        // B: outside the 10 s window but within lostAnswerSeconds (300) and its successor unused: the same one.
        #expect(try await successor(e2e, b1) == b2, "a lost answer was not answered again")
        #expect(try await successor(e2e, b2) != nil)

        // A: a used token whose successor was used, presented after the window: the whole session is revoked.
        #expect(try await successor(e2e, a1) == nil, "a reused token was accepted after the window")
        #expect(try await successor(e2e, a3) == nil, "the session survived a reuse")
        #expect(try await successor(e2e, a2) == nil)

        // C: past both windows (10 s and lostAnswerSeconds = 1): the reuse revokes, its unused successor dies too.
        #expect(try await successor(shortLived, c1) == nil, "a reuse after lostAnswerSeconds got the successor")
        #expect(try await successor(shortLived, c2) == nil, "the session survived a reuse")
    }
}
