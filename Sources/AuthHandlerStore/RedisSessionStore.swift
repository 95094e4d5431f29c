import AuthHandlerCrypto
import AuthHandlerSystem
import Foundation
import Synchronization

/// A `SessionStore` and `DeviceStore` in Redis, shared by every instance behind a load balancer (HTTP-API.md §2.5,
/// `store.kind: redis`).
///
/// Each operation is one command (or one script), so one round trip and atomic on the server. Keys are
/// `<prefix>state:<hex SHA-256>`, `<prefix>result:<hex>`, `<prefix>claim:<hex>`, `<prefix>counter:<hex>`, and device
/// sign-in's `<prefix>device-grant:<hex>`, `<prefix>device-request:<hex>`, `<prefix>device-decision:<hex>` and
/// `<prefix>device-decided:<hex>`; values are `1`, the sealed payload or a count, so Redis holds nothing readable or
/// replayable. Expiry is Redis's own (`PXAT` on every key), by Redis's
/// clock: the `now` arguments are not used, and `sweep` has nothing to do. Calls run on one worker thread of the
/// store's own (``RedisWorker``), each answered within the command timeout; the store is created without waiting for a
/// connection (it sends a first PING in the background), so `serve` starts while Redis is down.
package final class RedisSessionStore: SessionStore, DeviceStore {
    /// `store.keyPrefix`'s default.
    package static let defaultKeyPrefix = "auth-handler:"
    /// `store.commandTimeoutSeconds`'s default.
    package static let defaultCommandTimeout: Duration = .seconds(2)
    /// How long ``healthProblem()`` waits for its PING before answering from the connection's last known state.
    static let readinessWait: Duration = .milliseconds(250)

    private let worker: RedisWorker
    private let keyPrefix: String
    private let readiness = RedisReadiness()
    private let probe = ReadinessProbe()

    /// A store on `address`, authenticating with `password` when given. It connects in the background (a first PING)
    /// and never waits for that: `serve` starts while Redis is down.
    ///
    /// - Parameters:
    ///   - connectTimeout: how long a connection attempt may take.
    ///   - commandTimeout: how long an operation may take, waiting in the queue included: a command that gets no reply
    ///     in this time breaks the connection, and a caller still waiting then is answered `.unavailable`.
    package init(
        address: RedisAddress, password: Secret? = nil, keyPrefix: String = RedisSessionStore.defaultKeyPrefix,
        connectTimeout: Duration = .seconds(1), commandTimeout: Duration = RedisSessionStore.defaultCommandTimeout
    ) throws(StoreError) {
        // hiredis writes with write(2): a server that closed the socket must be EPIPE, not a SIGPIPE that kills us.
        do {
            try ProcessSetup.ensureInitialized()
        } catch {
            throw StoreError(.unavailable, detail: "process setup: \(error)")
        }
        self.keyPrefix = keyPrefix
        let readiness = self.readiness
        self.worker = RedisWorker(name: "auth-handler-redis", commandTimeout: commandTimeout, readiness: readiness) {
            ReconnectingRedisConnection(
                address: address, password: password, connectTimeout: connectTimeout, commandTimeout: commandTimeout,
                readiness: readiness)
        }
        probe.start(ping)
    }

    package func recordUsedState(key: String, expiresAt: Date) async throws(StoreError) -> Bool {
        try await setOnce(try self.key("state", key), expiresAt: expiresAt, operation: "SET (record used state)")
    }

    /// Sets `redisKey` until `expiresAt` unless it is set; says whether it did.
    private func setOnce(_ redisKey: [UInt8], expiresAt: Date, operation: String) async throws(StoreError) -> Bool {
        // SET NX is atomic: of two callers exactly one sets (https://redis.io/docs/latest/commands/set/).
        let reply = try await run(operation, ["SET", .raw(redisKey), "1", "NX", "PXAT", Self.milliseconds(expiresAt)])
        switch reply {
        case .status("OK"): return true
        case .null: return false
        default: throw Self.unexpected(reply, operation)
        }
    }

    package func insertResult(code: String, payload: [UInt8], expiresAt: Date) async throws(StoreError) {
        let resultKey = try self.key("result", code)
        let reply = try await run(
            "SET (insert result)", ["SET", .raw(resultKey), .raw(payload), "PXAT", Self.milliseconds(expiresAt), "NX"])
        switch reply {
        case .status("OK"): return
        case .null: throw StoreError(.unavailable, detail: "insert result: a result with this code exists")
        default: throw Self.unexpected(reply, "SET (insert result)")
        }
    }

    package func peekResult(code: String, now: Date) async throws(StoreError) -> ResultLookup {
        let (resultKey, claimKey) = try resultAndClaimKeys(code)
        // One MGET reads both, atomically (https://redis.io/docs/latest/commands/mget/).
        let reply = try await run("MGET (peek result)", ["MGET", .raw(resultKey), .raw(claimKey)])
        guard case .array(let values) = reply, values.count == 2 else {
            throw Self.unexpected(reply, "MGET (peek result)")
        }
        switch (values[0], values[1]) {
        case (.null, _): return .absent
        case (.string, .string): return .claimed
        case (.string(let payload), .null): return .available(payload)
        default: throw Self.unexpected(reply, "MGET (peek result)")
        }
    }

    /// Claims in one script, run atomically by Redis (https://redis.io/docs/latest/develop/interactivity/programmability/eval-intro/):
    /// absent → 0, claimed → 1, else the claim is set to expire with the result (`PEXPIRETIME`, Redis 7:
    /// https://redis.io/docs/latest/commands/pexpiretime/) and the payload is returned in a one-element array.
    static let claimScript = """
        local payload = redis.call('GET', KEYS[1])
        if not payload then return 0 end
        if redis.call('EXISTS', KEYS[2]) == 1 then return 1 end
        local expiry = redis.call('PEXPIRETIME', KEYS[1])
        if expiry > 0 then
          redis.call('SET', KEYS[2], '1', 'PXAT', expiry)
        else
          redis.call('SET', KEYS[2], '1')
        end
        return {payload}
        """

    package func claimResult(code: String, now: Date) async throws(StoreError) -> ResultLookup {
        let (resultKey, claimKey) = try resultAndClaimKeys(code)
        let reply = try await run(
            "EVAL (claim result)", ["EVAL", .text(Self.claimScript), "2", .raw(resultKey), .raw(claimKey)])
        switch reply {
        case .integer(0): return .absent
        case .integer(1): return .claimed
        case .array(let values) where values.count == 1:
            guard case .string(let payload) = values[0] else { throw Self.unexpected(reply, "EVAL (claim result)") }
            return .available(payload)
        default: throw Self.unexpected(reply, "EVAL (claim result)")
        }
    }

    package func releaseResult(code: String) async throws(StoreError) {
        let claimKey = try key("claim", code)
        let reply = try await run("DEL (release result)", ["DEL", .raw(claimKey)])
        guard case .integer = reply else { throw Self.unexpected(reply, "DEL (release result)") }
    }

    package func deleteResult(code: String) async throws(StoreError) {
        let (resultKey, claimKey) = try resultAndClaimKeys(code)
        let reply = try await run("DEL (delete result)", ["DEL", .raw(resultKey), .raw(claimKey)])
        guard case .integer = reply else { throw Self.unexpected(reply, "DEL (delete result)") }
    }

    /// Counts in one script, run atomically: `INCR` (https://redis.io/docs/latest/commands/incr/) creates the key at 1
    /// without an expiry, which the script then gives it (`PEXPIRE`), so the window opens with the first count and no
    /// later count moves its end; answers the count and the milliseconds left (`PTTL`).
    static let incrementScript = """
        local count = redis.call('INCR', KEYS[1])
        local remaining = redis.call('PTTL', KEYS[1])
        if remaining < 0 then
          redis.call('PEXPIRE', KEYS[1], ARGV[1])
          remaining = tonumber(ARGV[1])
        end
        return {count, remaining}
        """

    package func incrementCounter(key: String, window: Duration) async throws(StoreError) -> CounterReading {
        let counterKey = try self.key("counter", key)
        let milliseconds = max(1, Int64(window.timeInterval * 1000))
        let reply = try await run(
            "EVAL (increment counter)",
            ["EVAL", .text(Self.incrementScript), "1", .raw(counterKey), .text(String(milliseconds))])
        guard case .array(let values) = reply, values.count == 2, case .integer(let count) = values[0],
            case .integer(let remaining) = values[1]
        else { throw Self.unexpected(reply, "EVAL (increment counter)") }
        return CounterReading(count: Int(count), remaining: .milliseconds(max(1, remaining)))
    }

    /// Takes a count back in one script: `DECR` keeps the key's expiry (https://redis.io/docs/latest/commands/decr/);
    /// a count of 1 is deleted instead, and a missing (expired) key is not created again.
    static let decrementScript = """
        local count = tonumber(redis.call('GET', KEYS[1]))
        if not count then return 0 end
        if count > 1 then return redis.call('DECR', KEYS[1]) end
        redis.call('DEL', KEYS[1])
        return 0
        """

    package func decrementCounter(key: String) async throws(StoreError) {
        let counterKey = try self.key("counter", key)
        let reply = try await run(
            "EVAL (decrement counter)", ["EVAL", .text(Self.decrementScript), "1", .raw(counterKey)])
        guard case .integer = reply else { throw Self.unexpected(reply, "EVAL (decrement counter)") }
    }

    // MARK: - DeviceStore

    package func putDeviceRecord(
        kind: DeviceRecordKind, key: String, payload: [UInt8], expiresAt: Date
    ) async throws(StoreError) {
        let recordKey = try self.key("device-" + kind.rawValue, key)
        // SET NX: of two callers exactly one sets; an expired key is gone, so it is set again.
        let reply = try await run(
            "SET (put device record)",
            ["SET", .raw(recordKey), .raw(payload), "PXAT", Self.milliseconds(expiresAt), "NX"])
        switch reply {
        case .status("OK"): return
        case .null:
            throw StoreError(.conflict, detail: "put device record: a \(kind.rawValue) record with this key exists")
        default: throw Self.unexpected(reply, "SET (put device record)")
        }
    }

    package func deviceRecord(kind: DeviceRecordKind, key: String, now: Date) async throws(StoreError) -> [UInt8]? {
        let recordKey = try self.key("device-" + kind.rawValue, key)
        let reply = try await run("GET (device record)", ["GET", .raw(recordKey)])
        switch reply {
        case .string(let payload): return payload
        case .null: return nil
        default: throw Self.unexpected(reply, "GET (device record)")
        }
    }

    package func deleteDeviceRecord(kind: DeviceRecordKind, key: String) async throws(StoreError) {
        let recordKey = try self.key("device-" + kind.rawValue, key)
        let reply = try await run("DEL (delete device record)", ["DEL", .raw(recordKey)])
        guard case .integer = reply else { throw Self.unexpected(reply, "DEL (delete device record)") }
    }

    package func decideOnce(key: String, expiresAt: Date) async throws(StoreError) -> Bool {
        try await setOnce(try self.key("device-decided", key), expiresAt: expiresAt, operation: "SET (decide once)")
    }

    package func isDecided(key: String, now: Date) async throws(StoreError) -> Bool {
        let decidedKey = try self.key("device-decided", key)
        // EXISTS answers 1 or 0 for one key (https://redis.io/docs/latest/commands/exists/).
        let reply = try await run("EXISTS (is decided)", ["EXISTS", .raw(decidedKey)])
        switch reply {
        case .integer(let count): return count > 0
        default: throw Self.unexpected(reply, "EXISTS (is decided)")
        }
    }

    /// Redis removes expired keys itself (https://redis.io/docs/latest/commands/expire/#how-redis-expires-keys).
    package func sweep(now: Date) async throws(StoreError) -> Int { 0 }

    /// The connection's last known state, after waiting at most ``readinessWait`` for a PING of its own (one at a time,
    /// however many callers ask), so `/readyz` answers at once even while Redis stalls; the PING's outcome, a
    /// time-out included, updates the state for the next call.
    package func healthProblem() async -> String? {
        await probe.wait(atMost: Self.readinessWait, ping)
        return readiness.current
    }

    /// Queues a PING that answers `done` when it has run; a reply other than `PONG` (`-LOADING`, say) is a problem.
    private func ping(_ done: @escaping @Sendable () -> Void) {
        let readiness = self.readiness
        worker.submit { link in
            if let reply = try? link.command([Array("PING".utf8)], operation: "PING"), reply != .status("PONG") {
                readiness.failed("PING answered \(ReconnectingRedisConnection.describe(reply))")
            }
            done()
        }
    }

    // MARK: - Commands

    /// Runs one command on the worker thread; text arguments are sent as UTF-8.
    private func run(_ operation: String, _ arguments: [Argument]) async throws(StoreError) -> RedisReply {
        let encoded = arguments.map(\.bytes)
        return try await worker.run { link throws(StoreError) in try link.command(encoded, operation: operation) }
    }

    /// A command argument: text, or bytes sent unchanged.
    private enum Argument: ExpressibleByStringLiteral {
        case text(String)
        case raw([UInt8])

        init(stringLiteral value: String) { self = .text(value) }

        var bytes: [UInt8] {
            switch self {
            case .text(let text): Array(text.utf8)
            case .raw(let bytes): bytes
            }
        }
    }

    /// `<prefix><kind>:<hex SHA-256 of key>`.
    private func key(_ kind: String, _ secret: String) throws(StoreError) -> [UInt8] {
        key(kind, hexDigest: Hex.lowercase(try StoreKeyDigest.of(secret)))
    }

    private func key(_ kind: String, hexDigest: String) -> [UInt8] {
        Array((keyPrefix + kind + ":" + hexDigest).utf8)
    }

    /// A result's key and its claim's key, from one digest of the code.
    private func resultAndClaimKeys(_ code: String) throws(StoreError) -> (result: [UInt8], claim: [UInt8]) {
        let hexDigest = Hex.lowercase(try StoreKeyDigest.of(code))
        return (key("result", hexDigest: hexDigest), key("claim", hexDigest: hexDigest))
    }

    /// Unix time in milliseconds for `PXAT`, rounded up so a key never expires before `date`; at least 1.
    private static func milliseconds(_ date: Date) -> Argument {
        let value = (date.timeIntervalSince1970 * 1000).rounded(.up)
        let clamped = value.isFinite ? Int64(max(1, min(value, 9.0e15))) : 1
        return .text(String(clamped))
    }

    private static func unexpected(_ reply: RedisReply, _ operation: String) -> StoreError {
        StoreError(.unavailable, detail: "redis \(operation) answered \(ReconnectingRedisConnection.describe(reply))")
    }

    /// At most one readiness PING queued at a time, and the callers waiting for it, each for a bounded time.
    private final class ReadinessProbe: Sendable {
        typealias Send = (@escaping @Sendable () -> Void) -> Void

        private let state = Mutex<(running: Bool, waiters: [Int: CheckedContinuation<Void, Never>], nextID: Int)>(
            (false, [:], 0))

        /// Sends a probe unless one is under way, without waiting for it.
        func start(_ send: Send) {
            let idle = state.withLock { state in
                defer { state.running = true }
                return !state.running
            }
            if idle { send { self.finished() } }
        }

        /// Sends a probe unless one is under way, then waits until it is done or `limit` has passed.
        func wait(atMost limit: Duration, _ send: Send) async {
            let delay = RedisWorker.seconds(limit)
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let id = state.withLock { state in
                    defer { state.nextID += 1 }
                    state.waiters[state.nextID] = continuation
                    return state.nextID
                }
                start(send)
                DispatchQueue.global().asyncAfter(deadline: .now() + delay) {
                    self.state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
                }
            }
        }

        private func finished() {
            let waiters = state.withLock { state in
                defer {
                    state.running = false
                    state.waiters.removeAll()
                }
                return Array(state.waiters.values)
            }
            for waiter in waiters { waiter.resume() }
        }
    }
}
