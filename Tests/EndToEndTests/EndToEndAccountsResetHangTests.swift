import AuthHandlerHTTP
import Foundation
import TestSupport
import Testing

/// The reset's timing defence with the accounts' PostgreSQL hung (docs/ACCOUNTS.md "Enumeration"; HTTP-API.md §3.10
/// `POST /__/auth/password/reset` and §3.6's "Forgot password?" form): the answer is the same `200 {}` (or the same
/// page) for an address with an account and one without, given before the address is looked up, so it comes at once
/// even while the database answers nothing; the lookup and the mail follow, detached, and the mail goes out once the
/// database continues within `statementTimeoutMs`. A hang longer than that ends the lookup with a warning in the log
/// (never the address) and no mail: the user asks again. On a PostgreSQL server of the test's own, every process of it
/// stopped with SIGSTOP. It asserts timing, so `make test` runs it alone.
@Suite(.serialized, .timeLimit(.minutes(3))) struct EndToEndAccountsResetHangTests {
    static let password = "correct horse battery staple"
    /// The daemon's `statementTimeoutMs` (EndToEnd.config: 2000 on a test's own server). An answer that waited for the database would come
    /// no sooner than this, so each reset answer must come before it.
    static let statementTimeout: Duration = .seconds(2)

    @Test("PostgreSQL hung: reset answers 200 {} at once, alike for a known and an unknown address; the mail follows")
    func resetWhileHung() async throws {
        let postgres = try await PostgresTestServer.start()
        defer { try? FileManager.default.removeItem(at: postgres.directory) }
        try await withCleanup({ await postgres.stop() }) {
            try await AccountsDatabaseEngine.$server.withValue(postgres) {
                try await AccountsDatabaseEngine.postgres.run {
                    try await withMailingDaemon { e2e, sink in
                        try await Self.jsonReset(e2e, sink, postgres)
                        try await Self.pickerReset(e2e, sink, postgres)
                        try await Self.longerThanTheTimeout(e2e, sink, postgres)
                    }
                }
            }
        }
    }

    /// `POST /__/auth/password/reset` for an unknown, then a known address while PostgreSQL is hung: both `200 {}`
    /// before the statement timeout, and no mail until it continues; then the known address's mail.
    static func jsonReset(_ e2e: EndToEnd, _ sink: SMTPSink, _ postgres: PostgresTestServer) async throws {
        _ = try await e2e.signUp("known@example.com", password)
        let mailed = try sink.messageNames().count
        try await hung(postgres) {
            for email in ["nobody@example.com", "known@example.com"] {
                let started = ContinuousClock.now
                let asked = try await e2e.postJSON("/__/auth/password/reset", #"{"email": "\#(email)"}"#)
                let took = ContinuousClock.now - started
                print("reset for \(email) with PostgreSQL hung: \(asked.status) in \(took)")
                #expect(asked.status == 200 && asked.text == "{}", "\(email): \(asked.status) \(asked.text)")
                #expect(took < statementTimeout, "the reset for \(email) waited \(took): it waited for the database")
            }
            // The lookup cannot have ended while the database is stopped.
            #expect(try sink.messageNames().count == mailed, "a mail went out while the database was hung")
        }
        let mail = try await nextMail(sink, after: mailed)
        #expect(mail.recipients == ["known@example.com"])
        #expect(EndToEndAccountsMailTests.actionLink(in: mail)?.contains("mode=resetPassword") == true)
        #expect(try sink.messageNames().count == mailed + 1, "a mail for the unknown address")
    }

    /// The picker's "Forgot password?" form while PostgreSQL is hung: the same page for both addresses, at once; the
    /// known address's mail once it continues.
    static func pickerReset(_ e2e: EndToEnd, _ sink: SMTPSink, _ postgres: PostgresTestServer) async throws {
        _ = try await e2e.signUp("picker@example.com", password)
        let mailed = try sink.messageNames().count
        var pages: [String] = []
        try await hung(postgres) {
            for email in ["stranger@example.com", "picker@example.com"] {
                let started = ContinuousClock.now
                let page = try await EndToEndPickerEmailTests.submit(e2e, screen: "reset", [("email", email)])
                let took = ContinuousClock.now - started
                #expect(page.status == 200 && page.text.contains(#"id="reset-sent""#), "\(email): \(page.status)")
                #expect(took < statementTimeout, "the picker's reset for \(email) waited \(took)")
                pages.append(page.text.replacingOccurrences(of: email, with: "X"))
            }
        }
        #expect(pages.count == 2 && pages[0] == pages[1], "the pages tell the addresses apart")
        let mail = try await nextMail(sink, after: mailed)
        #expect(mail.recipients == ["picker@example.com"])
    }

    /// A hang longer than the statement timeout: the answer is still `200 {}` at once, the detached lookup gives up
    /// with a warning that names no address, and no mail goes out; asked again once the database is back, it does.
    static func longerThanTheTimeout(_ e2e: EndToEnd, _ sink: SMTPSink, _ postgres: PostgresTestServer) async throws {
        let mailed = try sink.messageNames().count
        try await hung(postgres) {
            let started = ContinuousClock.now
            let asked = try await e2e.postJSON("/__/auth/password/reset", #"{"email": "known@example.com"}"#)
            #expect(asked.status == 200 && asked.text == "{}", "\(asked.status) \(asked.text)")
            #expect(ContinuousClock.now - started < statementTimeout)
            let warning = await e2e.daemon.waitForErrorLine(startingWith: "level=warning event=accounts.reset")
            #expect(warning?.contains("unavailable") == true, "the lookup's end: \(warning ?? "none")")
            #expect(warning?.contains("known") == false, "the address reached the log")
        }
        #expect(try sink.messageNames().count == mailed, "a mail after the lookup gave up")
        let again = try await e2e.postJSON("/__/auth/password/reset", #"{"email": "known@example.com"}"#)
        #expect(again.status == 200)
        let mail = try await nextMail(sink, after: mailed)
        #expect(mail.recipients == ["known@example.com"])
    }

    /// Runs `body` with every process of `postgres` stopped (SIGSTOP), and continues them (SIGCONT) however it ends.
    static func hung(_ postgres: PostgresTestServer, _ body: () async throws -> Void) async throws {
        try MultiInstanceRun.signalAll(of: postgres, SIGSTOP)
        try await withCleanup({ try? MultiInstanceRun.signalAll(of: postgres, SIGCONT) }) { try await body() }
    }

    /// The next mail, once the sink holds more than `count` (bounded: 20 s, so a lost mail fails instead of hanging).
    static func nextMail(_ sink: SMTPSink, after count: Int) async throws -> ReceivedMail {
        let deadline = ContinuousClock.now + .seconds(20)
        while try sink.messageNames().count <= count {
            guard ContinuousClock.now < deadline else { throw TestProcessError("no mail within 20 s") }
            try await Task.sleep(for: .milliseconds(50))
        }
        return try await sink.nextMail()
    }
}
