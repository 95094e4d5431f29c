import AuthHandlerCrypto
import Foundation
import Synchronization

/// Where and how a PostgreSQL store connects (CONFIG.md `backend.database`, kind `postgres`).
package struct PostgresSettings: Sendable {
    /// The libpq connection URI (`postgresql://user@host:5432/db?sslmode=verify-full`), without a password.
    package var url: String
    package var password: Secret?
    /// Connections, each on a thread of its own.
    package var poolSize: Int
    /// The server's `statement_timeout`, and the most an operation waits for an answer, queueing included.
    package var statementTimeout: Duration

    package init(url: String, password: Secret?, poolSize: Int, statementTimeout: Duration) {
        self.url = url
        self.password = password
        self.poolSize = poolSize
        self.statementTimeout = statementTimeout
    }

    /// libpq's connection parameters (https://www.postgresql.org/docs/15/libpq-connect.html#LIBPQ-PARAMKEYWORDS): the
    /// URI first, then what overrides it.
    package var parameters: [(keyword: String, value: String)] {
        let milliseconds =
            statementTimeout.components.seconds * 1000
            + statementTimeout.components.attoseconds / 1_000_000_000_000_000
        // connect_timeout is whole seconds, at least 2; the deadline of `PQconnectPoll` is what bounds a connection.
        let connectSeconds = max(2, (milliseconds + 999) / 1000)
        var parameters: [(keyword: String, value: String)] = [
            ("dbname", url), ("connect_timeout", String(connectSeconds)), ("application_name", "auth-handler"),
            // Each statement is cancelled by the server after this; so is waiting for a row lock. Every transaction,
            // a lone statement's implicit one included, is serialisable unless it says otherwise
            // (``PostgresPool/statement(_:timeout:_:)``).
            (
                "options",
                "-c statement_timeout=\(milliseconds) -c lock_timeout=\(milliseconds) "
                    + "-c default_transaction_isolation=serializable"
            ),
            ("client_encoding", "UTF8"),
        ]
        if let password { parameters.append(("password", password.reveal())) }
        return parameters
    }

    /// The URI for messages: no password (the config refuses one in it all the same) and no query string.
    package var redactedURL: String { Self.redacted(url) }

    /// `url` for messages: no password and no query string.
    package static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url) else { return "the configured PostgreSQL URL" }
        components.password = nil
        components.query = nil
        return components.string ?? "the configured PostgreSQL URL"
    }
}

/// A small pool of libpq connections, each owned by a thread of its own that runs the callers' jobs one at a time, so
/// libpq's calls never hold a thread of Swift's cooperative pool (as `RedisWorker` does for hiredis).
///
/// Every operation has a deadline, the statement timeout from when it was queued: a job that reaches a thread after it
/// is answered `.unavailable` unrun, and a running job's every wait on the server is bounded by it
/// (``PostgresConnection``). A thread whose connection broke, or was left inside a transaction block, makes a new one
/// for its next job.
package final class PostgresPool: Sendable {
    typealias Job = @Sendable (PostgresWorkerSlot) -> Void

    private let queue = PostgresJobQueue()
    package let settings: PostgresSettings

    package init(settings: PostgresSettings, name: String) {
        self.settings = settings
        for index in 0..<max(1, settings.poolSize) {
            let queue = self.queue
            let thread = Thread {
                let slot = PostgresWorkerSlot(settings: settings)
                while let job = queue.next() { job(slot) }
            }
            thread.name = "\(name) \(index)"
            thread.start()
        }
    }

    deinit {
        queue.stop(threads: max(1, settings.poolSize))
    }

    /// Runs `body` on a pooled connection by the deadline (the statement timeout from now, or `timeout` for an
    /// operation known to be long, an import); the calling task is suspended, not blocked.
    package func run<Value: Sendable>(
        _ operation: String, timeout: Duration? = nil,
        _ body: @escaping @Sendable (PostgresConnection, ContinuousClock.Instant) throws(StoreError) -> Value
    ) async throws(StoreError) -> Value {
        let deadline = ContinuousClock.now + (timeout ?? settings.statementTimeout)
        let outcome: Result<Value, StoreError> = await withCheckedContinuation { continuation in
            queue.append { slot in
                let outcome = Result { () throws(StoreError) -> Value in
                    guard ContinuousClock.now < deadline else {
                        throw StoreError(
                            .unavailable, detail: "\(operation): no PostgreSQL connection free within the timeout")
                    }
                    let (connection, reused) = try slot.connection(until: deadline)
                    let answered = connection.answered
                    do throws(StoreError) {
                        defer { slot.checkIn() }
                        return try body(connection, deadline)
                    } catch  where reused && connection.isBroken && connection.answered == answered {
                        // A pooled connection the server closed while it sat idle (a restart): it failed at its first
                        // statement, so nothing ran; once more on a new one.
                        defer { slot.checkIn() }
                        return try body(try slot.connection(until: deadline).connection, deadline)
                    }
                }
                continuation.resume(returning: outcome)
            }
        }
        return try outcome.get()
    }
}

/// A worker thread's connection, made when first needed and again after it broke.
package final class PostgresWorkerSlot {
    private let settings: PostgresSettings
    private var current: PostgresConnection?

    init(settings: PostgresSettings) {
        self.settings = settings
    }

    var isConnected: Bool { current.map { !$0.isBroken } ?? false }

    /// The thread's connection, made when there is none or it broke; `reused` when it served earlier jobs.
    func connection(until deadline: ContinuousClock.Instant) throws(StoreError) -> (
        connection: PostgresConnection, reused: Bool
    ) {
        if let current, !current.isBroken { return (current, true) }
        current = nil
        let connection = try PostgresConnection(parameters: settings.parameters, deadline: deadline)
        try Self.checkSerializable(connection, deadline: deadline)
        current = connection
        return (connection, false)
    }

    /// Refuses a connection on which a lone statement would not be serialisable: the `options` parameter did not
    /// reach the server (a pooler in between that drops it), so ``PostgresPool/statement(_:timeout:_:)`` may not run.
    static func checkSerializable(_ connection: PostgresConnection, deadline: ContinuousClock.Instant)
        throws(StoreError)
    {
        let level = try connection.execute(
            "SHOW default_transaction_isolation", operation: "connect to PostgreSQL", deadline: deadline
        ).rows.first?.text(0)
        guard level == "serializable" else {
            throw StoreError(
                .unavailable,
                detail:
                    "connect to PostgreSQL: default_transaction_isolation is \(level ?? "unknown"), not serializable "
                    + "as the connection's options set it; connect to PostgreSQL itself, not a pooler that drops them")
        }
    }

    /// Ends a job's use of the connection: one that broke, or that a failed `ROLLBACK` left inside a transaction
    /// block, is closed (the server rolls back what it holds), so the next job never runs inside another's
    /// transaction, where a lone statement (``PostgresPool/statement(_:timeout:_:)``) would not commit.
    func checkIn() {
        if let current, current.isBroken || !current.isIdle { self.current = nil }
    }
}

/// The pool's jobs, taken by whichever thread is free first.
private final class PostgresJobQueue: Sendable {
    private let state = Mutex<(jobs: [PostgresPool.Job], stopping: Bool)>(([], false))
    private let available = DispatchSemaphore(value: 0)

    func append(_ job: @escaping PostgresPool.Job) {
        state.withLock { $0.jobs.append(job) }
        available.signal()
    }

    /// Wakes each of the `threads`; each ends once the queue is empty.
    func stop(threads: Int) {
        state.withLock { $0.stopping = true }
        for _ in 0..<threads { available.signal() }
    }

    /// The next job, waiting for one; nil once stopped and drained.
    func next() -> PostgresPool.Job? {
        while true {
            available.wait()
            let (job, stopping) = state.withLock { state -> (PostgresPool.Job?, Bool) in
                state.jobs.isEmpty ? (nil, state.stopping) : (state.jobs.removeFirst(), false)
            }
            if let job { return job }
            if stopping {
                available.signal()  // pass the wake-up on, so every thread sees the stop
                return nil
            }
        }
    }
}
