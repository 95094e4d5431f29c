import Foundation
import Synchronization

/// The one thread that talks to Redis: jobs queue up, run there one at a time, and resume their caller's
/// continuation, so hiredis's blocking calls never hold a thread of Swift's cooperative pool (docs/ARCHITECTURE.md).
final class RedisWorker: Sendable {
    /// A job, run on the worker thread with its `RedisLink`.
    typealias Job = @Sendable (RedisLink) -> Void

    private let queue = JobQueue()

    /// Starts the thread; `makeLink` runs on it, so the link (and its hiredis context) never leaves it.
    init(name: String, makeLink: @escaping @Sendable () -> RedisLink) {
        let queue = self.queue
        let thread = Thread {
            let link = makeLink()
            while let job = queue.next() { job(link) }
        }
        thread.name = name
        thread.start()
    }

    deinit {
        // The thread drains what is queued (nothing: every job's caller holds the store), then ends, freeing the link.
        queue.stop()
    }

    /// Runs `body` on the worker thread and returns its outcome; the calling task is suspended, not blocked.
    func run<Value: Sendable>(
        _ body: @escaping @Sendable (RedisLink) throws(StoreError) -> Value
    ) async throws(StoreError) -> Value {
        let outcome: Result<Value, StoreError> = await withCheckedContinuation { continuation in
            queue.append { link in
                continuation.resume(returning: Result { () throws(StoreError) -> Value in try body(link) })
            }
        }
        return try outcome.get()
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

        /// The next job, waiting for one; nil once stopped and drained.
        func next() -> Job? {
            while true {
                available.wait()
                let job: Job?? = state.withLock { state in
                    if state.head < state.jobs.count {
                        let job = state.jobs[state.head]
                        state.head += 1
                        if state.head == state.jobs.count {
                            state.jobs.removeAll(keepingCapacity: true)
                            state.head = 0
                        }
                        return .some(job)
                    }
                    return state.stopping ? .some(nil) : nil
                }
                if let job { return job }
            }
        }
    }
}
