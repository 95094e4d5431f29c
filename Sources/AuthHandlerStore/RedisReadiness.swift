import Synchronization

/// The last known state of the Redis store's connection: why it cannot serve, or nil when the last command got a
/// reply. Written by the worker thread's `ReconnectingRedisConnection` after every command and by `RedisWorker` when an operation runs
/// out of time; read by `RedisSessionStore.healthProblem()`, so `/readyz` never waits in the operations' queue.
final class RedisReadiness: Sendable {
    private let problem = Mutex<String?>("no connection to Redis yet")

    /// Why the store cannot serve, or nil.
    var current: String? { problem.withLock { $0 } }

    /// A reply came (an error reply too: the connection works).
    func replied() { problem.withLock { $0 = nil } }

    /// The connection failed, or an operation got no reply in time.
    func failed(_ detail: String) { problem.withLock { $0 = detail } }
}
