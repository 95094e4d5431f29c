import Foundation
import Synchronization

/// The one thread that talks to Redis: jobs queue up, run there one at a time, and resume their caller's
/// continuation, so hiredis's blocking calls never hold a thread of Swift's cooperative pool (docs/ARCHITECTURE.md).
///
/// Every operation has a deadline, the command timeout from when it was queued: a caller still waiting then — in the
/// queue behind a stalled command, or on its own command — is answered `.unavailable` at once, and a job whose caller
/// was answered so is dropped unrun when the thread reaches it. A stalled Redis therefore costs each operation at most
/// one command timeout, never the sum of the ones queued before it.
final class RedisWorker: Sendable {
    /// A job, run on the worker thread with its `ReconnectingRedisConnection`.
    typealias Job = @Sendable (ReconnectingRedisConnection) -> Void

    private let queue = JobQueue()
    private let commandTimeout: Duration
    private let readiness: RedisReadiness

    /// Starts the thread; `makeLink` runs on it, so the link (and its hiredis context) never leaves it.
    init(
        name: String, commandTimeout: Duration, readiness: RedisReadiness,
        makeLink: @escaping @Sendable () -> ReconnectingRedisConnection
    ) {
        self.commandTimeout = commandTimeout
        self.readiness = readiness
        let queue = self.queue
        let thread = Thread {
            let link = makeLink()
            while let job = queue.next() { job(link) }
        }
        thread.name = name
        thread.start()
    }

    deinit {
        // The thread drains what is queued (callers hold the store while they wait; a background probe may remain),
        // then ends, freeing the link.
        queue.stop()
    }

    /// Runs `body` on the worker thread and returns its outcome, or `.unavailable` once the command timeout has
    /// passed since the call; the calling task is suspended, not blocked.
    func run<Value: Sendable>(
        _ body: @escaping @Sendable (ReconnectingRedisConnection) throws(StoreError) -> Value
    ) async throws(StoreError) -> Value {
        let timeout = commandTimeout
        let readiness = self.readiness
        let outcome: Result<Value, StoreError> = await withCheckedContinuation { continuation in
            let ticket = Ticket(continuation)
            queue.append { link in
                guard ticket.begin() else { return }
                ticket.finish(Result { () throws(StoreError) -> Value in try body(link) })
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + Self.seconds(timeout)) {
                guard let (phase, continuation) = ticket.expire() else { return }
                let limit = Self.text(timeout)
                let detail =
                    switch phase {
                    case .queued: "no reply from Redis within \(limit): still queued behind a command waiting for Redis"
                    case .running: "no reply from Redis within \(limit) (the command may have run)"
                    }
                readiness.failed(detail)
                continuation.resume(returning: .failure(StoreError(.unavailable, detail: detail)))
            }
        }
        return try outcome.get()
    }

    /// Queues `job` with no caller waiting for it (the readiness probe).
    func submit(_ job: @escaping Job) {
        queue.append(job)
    }

    /// A duration in seconds, for `DispatchTime` arithmetic.
    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// `2 s`, `0.3 s`.
    private static func text(_ duration: Duration) -> String {
        let seconds = seconds(duration)
        return seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
    }

    /// One caller's wait: resumed exactly once, by its job's outcome or by its deadline, whichever comes first.
    private final class Ticket<Value: Sendable>: Sendable {
        enum Phase { case queued, running }

        private let state: Mutex<(phase: Phase, continuation: CheckedContinuation<Result<Value, StoreError>, Never>?)>

        init(_ continuation: CheckedContinuation<Result<Value, StoreError>, Never>) {
            state = Mutex((.queued, continuation))
        }

        /// On the worker thread, before running the job: false when the caller was already answered.
        func begin() -> Bool {
            state.withLock { state in
                guard state.continuation != nil else { return false }
                state.phase = .running
                return true
            }
        }

        /// The deadline passed: the phase the job was in and the caller's continuation, now the timer's to resume; nil
        /// when the caller was already answered.
        func expire() -> (Phase, CheckedContinuation<Result<Value, StoreError>, Never>)? {
            state.withLock { state in
                guard let continuation = state.continuation else { return nil }
                state.continuation = nil
                return (state.phase, continuation)
            }
        }

        /// Answers the caller with the job's outcome unless the deadline answered it first.
        func finish(_ outcome: Result<Value, StoreError>) {
            let continuation = state.withLock { state in
                let continuation = state.continuation
                state.continuation = nil
                return continuation
            }
            continuation?.resume(returning: outcome)
        }
    }

    /// Jobs waiting for the thread; `next()` blocks on a semaphore counting them.
    private final class JobQueue: Sendable {
        private let state = Mutex<(jobs: [Job], head: Int, stopping: Bool)>(([], 0, false))
        private let available = DispatchSemaphore(value: 0)

        func append(_ job: @escaping Job) {
            state.withLock { $0.jobs.append(job) }
            available.signal()
        }

        func stop() {
            state.withLock { $0.stopping = true }
            available.signal()
        }

        /// What one look at the queue finds.
        private enum Dequeued {
            /// The job to run next.
            case job(Job)
            /// Stopped, and every queued job has run.
            case drained
            /// Nothing yet: a wake-up without a job (the `signal` of a job already taken).
            case empty
        }

        /// The next job, waiting for one; nil once stopped and drained.
        func next() -> Job? {
            while true {
                available.wait()
                let found: Dequeued = state.withLock { state in
                    if state.head < state.jobs.count {
                        let job = state.jobs[state.head]
                        state.head += 1
                        if state.head == state.jobs.count {
                            state.jobs.removeAll(keepingCapacity: true)
                            state.head = 0
                        }
                        return .job(job)
                    }
                    return state.stopping ? .drained : .empty
                }
                switch found {
                case .job(let job): return job
                case .drained: return nil
                case .empty: continue
                }
            }
        }
    }
}
