import AuthHandlerHTTP
import AuthHandlerStore
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import AuthHandlerAccounts

#if canImport(Glibc)
    import Glibc
#endif

/// The reports a queue made, in order.
final class MailReportLog: Sendable {
    private let reports = Mutex<[MailReport]>([])

    var all: [MailReport] { reports.withLock { $0 } }

    func record(_ report: MailReport) { reports.withLock { $0.append(report) } }

    /// The events, as short text: `failed 1 5s`, `delivered 3`, ….
    var events: [String] {
        all.map { report in
            switch report.event {
            case .delivered(let attempts): "delivered \(attempts)"
            case .failed(let attempt, _, let retryIn): "failed \(attempt) \(retryIn.components.seconds)s"
            case .gaveUp(let attempts, _): "gave up \(attempts)"
            case .droppedOverLimit: "dropped over limit"
            case .droppedLimitUnavailable: "dropped limit unavailable"
            case .abandoned(let attempts): "abandoned \(attempts)"
            }
        }
    }
}

/// A mailer that records what it is handed and fails as long as `failures` says.
final class ScriptedMailer: Mailer {
    private let state: Mutex<(failures: Int, delivered: [MailMessage], attempts: Int)>

    init(failures: Int = 0) {
        state = Mutex((failures, [], 0))
    }

    var delivered: [MailMessage] { state.withLock { $0.delivered } }
    var attempts: Int { state.withLock { $0.attempts } }

    func deliver(_ message: MailMessage) async throws(MailDeliveryError) {
        let fails = state.withLock { state in
            state.attempts += 1
            guard state.failures == 0 else {
                state.failures -= 1
                return true
            }
            state.delivered.append(message)
            return false
        }
        if fails {
            throw MailDeliveryError(
                .smtp(
                    SMTPClientError(
                        kind: .transfer(
                            code: 55, text: "Failed sending network data", detail: "RCPT failed: 451", reply: 451),
                        target: "smtp://mail.example.com:587")))
        }
    }
}

/// A counter store that is down.
struct UnavailableCounterStore: CounterStore {
    func incrementCounter(key: String, window: Duration) async throws(StoreError) -> CounterReading {
        throw StoreError(.unavailable, detail: "down for the test")
    }

    func decrementCounter(key: String) async throws(StoreError) {}
}

@Suite(.serialized) struct AccountsMailQueueTests {
    static func message(_ kind: MailKind = .resetPassword, to recipient: String = "alice@example.com") throws
        -> MailMessage
    {
        try AccountsSMTPTests.message(kind, to: recipient)
    }

    @Test("the back-off: 5 s doubling to 10 min")
    func backOff() {
        let policy = MailRetryPolicy()
        let delays = (1...10).map { policy.delay(afterFailure: $0).components.seconds }
        #expect(delays == [5, 10, 20, 40, 80, 160, 320, 600, 600, 600])
        #expect(policy.delay(afterFailure: 10_000) == .seconds(600))
    }

    @Test(
        "a server answering 4xx or 5xx: each failure reported, retried after 5 s then 10 s, delivered once it recovers",
        arguments: ["451 4.3.0 Try again later", "550 5.1.1 Mailbox unavailable"])
    func retriedUntilDelivered(_ reply: String) async throws {
        let sink = try await SMTPSink.start(["--fail", "2:\(reply)"])
        try await withCleanup({ await sink.stop() }) {
            let clock = TestClock()
            let log = MailReportLog()
            let queue = MailQueue(
                mailer: try SMTPMailer(configuration: SMTPClientConfiguration(url: sink.url)),
                limits: MemorySessionStore(now: clock.read), clock: clock, report: log.record)
            let start = clock.date
            #expect(await queue.enqueue(try Self.message()))
            await queue.drain()
            #expect(log.events == ["failed 1 5s", "failed 2 10s", "delivered 3"])
            #expect(clock.date.timeIntervalSince(start) == 15)
            guard case .failed(_, let error, _) = log.all.first?.event, case .smtp(let smtp) = error.kind else {
                Issue.record("no SMTP failure reported")
                return
            }
            #expect(smtp.reply == Int(reply.prefix(3)))
            let mail = try await sink.nextMail()
            #expect(mail.recipients == ["alice@example.com"])
            #expect(try sink.messageNames().count == 1)
        }
    }

    @Test("a mail that keeps failing is given up, with a report, after 24 hours")
    func givenUp() async throws {
        let clock = TestClock()
        let log = MailReportLog()
        let mailer = ScriptedMailer(failures: .max)
        let queue = MailQueue(
            mailer: mailer, limits: MemorySessionStore(now: clock.read), clock: clock, report: log.record)
        let start = clock.date
        await queue.enqueue(try Self.message())
        await queue.drain()
        let events = log.events
        #expect(
            events.prefix(8) == [
                "failed 1 5s", "failed 2 10s", "failed 3 20s", "failed 4 40s", "failed 5 80s", "failed 6 160s",
                "failed 7 320s", "failed 8 600s",
            ])
        // 635 s for the first seven waits, then 600 s each: the 150th attempt is the last within 24 hours.
        #expect(events.last == "gave up 150")
        #expect(events.count == 150)
        #expect(mailer.attempts == 150)
        let elapsed = clock.date.timeIntervalSince(start)
        #expect(elapsed <= 86400 && elapsed > 86400 - 600)
        #expect(log.all.last?.isLoss == true)
    }

    @Test("at most 3 mails per recipient (normalised) per hour; the fourth is dropped and reported")
    func perRecipientLimit() async throws {
        let clock = TestClock()
        let log = MailReportLog()
        let mailer = ScriptedMailer()
        let queue = MailQueue(
            mailer: mailer, limits: MemorySessionStore(now: clock.read), clock: clock, report: log.record)
        for spelling in ["alice@example.com", "Alice@Example.com", "ALICE@EXAMPLE.COM"] {
            #expect(await queue.enqueue(try Self.message(to: spelling)))
        }
        #expect(await queue.enqueue(try Self.message(.verifyEmail, to: "alice@example.COM")) == false)
        // Another recipient has its own budget; so has a security notice to the same one.
        #expect(await queue.enqueue(try Self.message(to: "bob@example.com")))
        #expect(await queue.enqueue(try Self.message(.emailChanged, to: "alice@example.com")))
        await queue.drain()
        #expect(mailer.delivered.count == 5)
        #expect(log.events.filter { $0 == "dropped over limit" }.count == 1)
        let dropped = log.all.first { if case .droppedOverLimit = $0.event { true } else { false } }
        #expect(dropped?.kind == .verifyEmail)
        #expect(dropped?.recipientDomain == "example.com")
        #expect(dropped?.isLoss == true)

        clock.advance(by: 3600)
        #expect(await queue.enqueue(try Self.message(to: "alice@example.com")))
        await queue.drain()
        #expect(mailer.delivered.count == 6)
    }

    @Test("when the limit cannot be counted, the mail is not sent, and that is reported")
    func limitUnavailable() async throws {
        let log = MailReportLog()
        let mailer = ScriptedMailer()
        let queue = MailQueue(mailer: mailer, limits: UnavailableCounterStore(), clock: TestClock(), report: log.record)
        #expect(await queue.enqueue(try Self.message()) == false)
        await queue.drain()
        #expect(mailer.attempts == 0)
        #expect(log.events == ["dropped limit unavailable"])
    }

    @Test("a report names the kind and the recipient's domain, never the address or the body's code")
    func reportText() async throws {
        let clock = TestClock()
        let log = MailReportLog()
        let queue = MailQueue(
            mailer: ScriptedMailer(failures: 1), limits: MemorySessionStore(now: clock.read), clock: clock,
            report: log.record)
        await queue.enqueue(try Self.message(to: "Secret.Person@Bücher.example"))
        await queue.drain()
        #expect(log.all.count == 2)
        for report in log.all {
            let text = "\(report)"
            #expect(text.contains("reset-password mail to a recipient at xn--bcher-kva.example"))
            #expect(!text.lowercased().contains("secret.person"))
            #expect(!text.contains("C0DE"))
            #expect(!text.contains("oobCode"))
        }
    }

    @Test("shutting down abandons a mail waiting to be retried, with a report")
    func shutDown() async throws {
        let log = MailReportLog()
        let (failed, failedSink) = AsyncStream<Void>.makeStream()
        let queue = MailQueue(
            mailer: ScriptedMailer(failures: .max), limits: MemorySessionStore(),
            policy: MailRetryPolicy(firstDelay: .seconds(3600), maximumDelay: .seconds(3600)),
            report: { report in
                log.record(report)
                if case .failed = report.event { failedSink.yield() }
            })
        await queue.enqueue(try Self.message())
        for await _ in failed { break }
        await queue.shutDown()
        #expect(log.events == ["failed 1 3600s", "abandoned 1"])
        #expect(await queue.enqueue(try Self.message(to: "bob@example.com")) == false)
        #expect(log.events.last == "abandoned 0")
    }

    @Test("the outbox: one .eml file per message, 0600, the message's bytes, unique names")
    func outbox() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = TestClock()
        let outbox = try OutboxMailer(directory: directory.path, now: clock.read)
        let first = try Self.message(.resetPassword)
        let second = try Self.message(.resetPassword)
        try await outbox.deliver(first)
        try await outbox.deliver(second)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(names.count == 2)
        #expect(Set(names).count == 2)
        var contents: [[UInt8]] = []
        for name in names {
            #expect(name.wholeMatch(of: /1700000000-reset-password-[0-9a-f]{32}\.eml/) != nil)
            let path = directory.appendingPathComponent(name).path
            var status = stat()
            #expect(lstat(path, &status) == 0)
            #expect(status.st_mode & 0o777 == 0o600)
            #expect(status.st_mode & S_IFMT == S_IFREG)
            contents.append([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        }
        #expect(Set(contents) == Set([first.data, second.data]))
    }

    @Test("the outbox directory must exist and be a directory")
    func outboxDirectory() throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID().uuidString)")
        #expect(throws: MailDeliveryError.self) { try OutboxMailer(directory: missing.path) }
        #expect(!FileManager.default.fileExists(atPath: missing.path))
        let file = missing.path + ".txt"
        #expect(FileManager.default.createFile(atPath: file, contents: Data()))
        defer { try? FileManager.default.removeItem(atPath: file) }
        #expect(throws: MailDeliveryError.self) { try OutboxMailer(directory: file) }
    }

    @Test("the outbox through the queue: a delivered report and the file")
    func outboxQueue() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = TestClock()
        let log = MailReportLog()
        let queue = MailQueue(
            mailer: try OutboxMailer(directory: directory.path, now: clock.read),
            limits: MemorySessionStore(now: clock.read), clock: clock, report: log.record)
        await queue.enqueue(try Self.message(.identityLinked))
        await queue.drain()
        #expect(log.events == ["delivered 1"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).count == 1)
    }
}
