import Foundation

/// The threads password hashes run on (issue 25 §3 "Hashing is a budget"): `size` threads of their own, never the
/// caller's thread and never Swift's cooperative pool, which the listener's handlers share — a 46 ms argon2id hash
/// there would hold up every other request (docs/ARCHITECTURE.md, FIELD-NOTES "Two cores, one cooperative pool").
///
/// Admission is decided at once, never by waiting: besides the `size` jobs running, at most `2 × size` wait, and one
/// client has at most `maxPerClient` jobs waiting or running; anything beyond is refused immediately and the caller
/// answers `503 unavailable` with `Retry-After`.
final class HashingPool: @unchecked Sendable {
    // @unchecked: every mutable field below is read and written only with `condition` locked.

    /// Why a job was not accepted.
    enum Refusal: Sendable, Equatable {
        /// The queue already holds twice the pool's size.
        case queueFull
        /// The client already has `maxPerClient` jobs in the pool.
        case clientFull
    }

    /// A job's work, run on a pool thread; it returns what delivers its result, which the pool calls after it has
    /// freed the job's place, so that a caller answered at once may queue its next job.
    typealias Work = @Sendable () -> @Sendable () -> Void

    private struct Job {
        let client: ClientKey
        let work: Work
    }

    /// The number of threads.
    let size: Int
    /// The most jobs waiting (not yet running): twice the pool.
    let maxWaiting: Int
    /// The most jobs of one client, waiting or running.
    let maxPerClient: Int

    private let condition = NSCondition()
    private var waiting: [Job] = []
    private var perClient: [ClientKey: Int] = [:]
    private var running = 0
    private var stopped = false
    private var workers: Set<pthread_t> = []

    init(size: Int, maxPerClient: Int = 2, name: String = "argon2id") {
        self.size = max(1, size)
        maxWaiting = 2 * self.size
        self.maxPerClient = max(1, maxPerClient)
        for index in 0..<self.size {
            let threadName = "\(name)-\(index)"
            let thread = Thread { [self] in
                // Named on the running thread too, which is how swift-corelibs-foundation passes a name to the OS
                // thread (top -H). Nothing depends on the name: `isCurrentThreadWorker` knows the threads by id.
                Thread.current.name = threadName
                registerWorker()
                runWorker()
            }
            thread.name = threadName
            thread.start()
        }
    }

    /// Queues `work` for `client`, or says why not; `work` runs later on one of the pool's threads.
    func submit(client: ClientKey, _ work: @escaping Work) -> Refusal? {
        condition.lock()
        defer { condition.unlock() }
        guard !stopped, waiting.count + running < size + maxWaiting else { return .queueFull }
        guard perClient[client, default: 0] < maxPerClient else { return .clientFull }
        perClient[client, default: 0] += 1
        waiting.append(Job(client: client, work: work))
        condition.signal()
        return nil
    }

    /// Jobs waiting and jobs running now.
    var depth: (waiting: Int, running: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (waiting.count, running)
    }

    /// Lets the threads end once the jobs already queued are done; later submissions are refused.
    func shutdown() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// Whether the calling thread is one of this pool's.
    var isCurrentThreadWorker: Bool {
        condition.lock()
        defer { condition.unlock() }
        return workers.contains(pthread_self())
    }

    private func registerWorker() {
        condition.lock()
        workers.insert(pthread_self())
        condition.unlock()
    }

    private func runWorker() {
        while let job = next() {
            let deliver = job.work()
            condition.lock()
            running -= 1
            let remaining = perClient[job.client, default: 1] - 1
            perClient[job.client] = remaining > 0 ? remaining : nil
            condition.unlock()
            deliver()
        }
    }

    private func next() -> Job? {
        condition.lock()
        defer { condition.unlock() }
        while waiting.isEmpty {
            if stopped { return nil }
            condition.wait()
        }
        running += 1
        return waiting.removeFirst()
    }
}
