import Foundation
import TestSupport
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerCrypto
@testable import AuthHandlerHTTP
@testable import AuthHandlerStore

#if canImport(Glibc)
    import Glibc
#endif

/// What only the Redis store has: its key layout, Redis's own expiry, connection loss and recovery, AUTH.
/// The shared one-time semantics run on Redis too, in StoreSemanticsTests.
struct StoreRedisTests {
    /// Every key is `<prefix><kind>:<hex SHA-256>` and every value is `1` or the sealed payload: nothing in the
    /// database is a state, request token or result code in clear.
    @Test func keysAndValuesHoldNoSecretInClear() async throws {
        try await withRedisServer { server in
            let store = try RedisSessionStore(address: server.address, keyPrefix: "tenant-a:")
            let expiresAt = Date() + 60
            #expect(try await store.recordUsedState(key: "state-in-clear", expiresAt: expiresAt))
            try await store.insertResult(code: "code-in-clear", payload: storeBytes("sealed"), expiresAt: expiresAt)
            #expect(try await store.claimResult(code: "code-in-clear", now: Date()) == .available(storeBytes("sealed")))

            guard case .array(let names) = try server.command(["KEYS", "*"]) else {
                Issue.record("KEYS did not answer an array")
                return
            }
            let keys = names.compactMap { name -> String? in
                guard case .string(let bytes) = name else { return nil }
                return String(decoding: bytes, as: UTF8.self)
            }
            let stateHex = try Self.hex(SHA256.hash(Array("state-in-clear".utf8)))
            let codeHex = try Self.hex(SHA256.hash(Array("code-in-clear".utf8)))
            #expect(
                Set(keys) == ["tenant-a:state:\(stateHex)", "tenant-a:result:\(codeHex)", "tenant-a:claim:\(codeHex)"])
            for key in keys {
                #expect(!key.contains("in-clear"))
                let value = try server.command(["GET", key])
                #expect(value == .string(storeBytes("1")) || value == .string(storeBytes("sealed")), "\(key)")
                // Every key expires by itself: Redis, not a sweep, removes it.
                guard case .integer(let expiry) = try server.command(["PEXPIRETIME", key]) else {
                    Issue.record("PEXPIRETIME \(key) did not answer an integer")
                    continue
                }
                #expect(expiry == Int64((expiresAt.timeIntervalSince1970 * 1000).rounded(.up)), "\(key)")
            }
            #expect(try await store.sweep(now: Date() + 3600) == 0)
        }
    }

    /// A counter is `<prefix>counter:<hex SHA-256 of its key>` holding only the count, and expires by Redis's clock at
    /// the end of the window its first count opened: later counts and refunds keep that expiry, and a refund after it
    /// creates nothing.
    @Test func aCounterIsADigestKeyThatExpiresWithItsWindow() async throws {
        try await withRedisServer { server in
            let store = try RedisSessionStore(address: server.address, keyPrefix: "tenant-a:")
            let first = try await store.incrementCounter(key: "device-entry:203.0.113.5", window: .seconds(60))
            #expect(first.count == 1 && first.remaining > .seconds(59) && first.remaining <= .seconds(60))
            let key = "tenant-a:counter:" + (try Self.hex(SHA256.hash(Array("device-entry:203.0.113.5".utf8))))
            #expect(try server.command(["KEYS", "*"]) == .array([.string(storeBytes(key))]))
            #expect(try server.command(["GET", key]) == .string(storeBytes("1")))
            let expiry = try server.command(["PEXPIRETIME", key])
            guard case .integer(let milliseconds) = expiry, milliseconds > 0 else {
                Issue.record("the counter has no expiry: \(expiry)")
                return
            }
            #expect(try await store.incrementCounter(key: "device-entry:203.0.113.5", window: .seconds(60)).count == 2)
            try await store.decrementCounter(key: "device-entry:203.0.113.5")
            #expect(try server.command(["GET", key]) == .string(storeBytes("1")))
            #expect(try server.command(["PEXPIRETIME", key]) == expiry)

            #expect(try server.command(["PEXPIREAT", key, "1"]) == .integer(1))
            try await store.decrementCounter(key: "device-entry:203.0.113.5")
            #expect(try server.command(["GET", key]) == .null)
            #expect(try await store.incrementCounter(key: "device-entry:203.0.113.5", window: .seconds(60)).count == 1)
        }
    }

    /// Keys expire by Redis's clock at the `expiresAt` the store was given, to the millisecond (`PXAT`); once Redis
    /// has expired them the store sees nothing, and a state can be recorded again. Redis's clock cannot be moved by a
    /// test, so "once expired" is Redis's own expiry of a key whose time has come (`PEXPIREAT` to the past), not a
    /// wait.
    @Test func keysExpireByRedisClock() async throws {
        try await withRedisServer { server in
            let store = try RedisSessionStore(address: server.address)
            let stateExpiry = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 600).rounded(.down))
            let resultExpiry = stateExpiry + 120.5
            #expect(try await store.recordUsedState(key: "state-1", expiresAt: stateExpiry))
            #expect(try await !store.recordUsedState(key: "state-1", expiresAt: Date() + 60))
            try await store.insertResult(code: "code-1", payload: storeBytes("r"), expiresAt: resultExpiry)
            #expect(try await store.claimResult(code: "code-1", now: Date()) == .available(storeBytes("r")))
            let stateKey = "auth-handler:state:" + (try Self.hex(SHA256.hash(Array("state-1".utf8))))
            let resultKey = "auth-handler:result:" + (try Self.hex(SHA256.hash(Array("code-1".utf8))))
            let claimKey = "auth-handler:claim:" + (try Self.hex(SHA256.hash(Array("code-1".utf8))))
            func milliseconds(_ date: Date) -> RedisReply {
                .integer(Int64((date.timeIntervalSince1970 * 1000).rounded(.up)))
            }
            #expect(try server.command(["PEXPIRETIME", stateKey]) == milliseconds(stateExpiry))
            #expect(try server.command(["PEXPIRETIME", resultKey]) == milliseconds(resultExpiry))
            // The claim lasts exactly as long as the result (HTTP-API.md §3.3: a claim never lapses while the result
            // could be redeemed again).
            #expect(try server.command(["PEXPIRETIME", claimKey]) == milliseconds(resultExpiry))
            #expect(try await store.peekResult(code: "code-1", now: Date()) == .claimed)

            for key in [resultKey, claimKey] { #expect(try server.command(["PEXPIREAT", key, "1"]) == .integer(1)) }
            #expect(try await store.peekResult(code: "code-1", now: Date()) == .absent)
            #expect(try await store.claimResult(code: "code-1", now: Date()) == .absent)
            #expect(try server.command(["EXISTS", claimKey]) == .integer(0))

            #expect(try server.command(["PEXPIREAT", stateKey, "1"]) == .integer(1))
            let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<50 {
                    group.addTask { try await store.recordUsedState(key: "state-1", expiresAt: Date() + 60) }
                }
                var winners = 0
                for try await recorded in group where recorded { winners += 1 }
                return winners
            }
            #expect(winners == 1)
        }
    }

    /// An error reply (here WRONGTYPE, a key of another type under the result's name) is `.unavailable` naming the
    /// command, and never the code.
    @Test func anErrorReplyNamesTheCommandNotTheCode() async throws {
        try await withRedisServer { server in
            let store = try RedisSessionStore(address: server.address)
            let resultKey = "auth-handler:result:" + (try Self.hex(SHA256.hash(Array("code-x".utf8))))
            #expect(try server.command(["HSET", resultKey, "f", "v"]) == .integer(1))
            let error = await #expect(throws: StoreError.self) {
                try await store.claimResult(code: "code-x", now: Date())
            }
            #expect(error?.kind == .unavailable)
            #expect(error?.detail.contains("EVAL (claim result)") == true, "\(String(describing: error))")
            #expect(error?.detail.contains("WRONGTYPE") == true, "\(String(describing: error))")
            #expect(error?.detail.contains("code-x") == false)
            // The connection survived the error reply.
            #expect(await store.isHealthy())
        }
    }

    /// Nothing listens: operations fail at once with `.unavailable` carrying hiredis's reason, then back off
    /// without a new attempt; the store is unhealthy.
    @Test func unreachableRedisFailsFast() async throws {
        try await withStoreTemporaryDirectory { directory in
            let store = try RedisSessionStore(
                address: RedisAddress(endpoint: .unix(path: directory.appendingPathComponent("none.sock").path)))
            let clock = ContinuousClock()
            let start = clock.now
            let first = await #expect(throws: StoreError.self) {
                try await store.recordUsedState(key: "s", expiresAt: Date() + 60)
            }
            #expect(first?.kind == .unavailable)
            #expect(first?.detail.contains("connect to unix:") == true, "\(String(describing: first))")
            #expect(first?.detail.contains("No such file or directory") == true, "\(String(describing: first))")
            let second = await #expect(throws: StoreError.self) { try await store.deleteResult(code: "c") }
            // Within the 250 ms back-off no new attempt is made; on a loaded machine the back-off may have run out,
            // and then the attempt itself fails again at once.
            let detail = second?.detail ?? ""
            #expect(
                detail.contains("next connection attempt in") || detail.contains("connect to unix:"),
                "\(String(describing: second))")
            #expect(await !store.isHealthy())
            // Fails fast, never a hang. (make test runs this suite with the timing-sensitive HTTP tests, apart from
            // the CPU-bound ones, which can hold the cooperative threads that resume these calls for seconds.)
            #expect(clock.now - start < .seconds(3))
        }
    }

    /// A server that stops answering (SIGSTOP) costs one command timeout, not a hang.
    @Test func hungRedisTimesOut() async throws {
        try await withRedisServer { server in
            let store = try RedisSessionStore(address: server.address, commandTimeout: .milliseconds(300))
            #expect(await store.isHealthy())
            server.signal(SIGSTOP)
            defer { server.signal(SIGCONT) }
            let clock = ContinuousClock()
            let start = clock.now
            let error = await #expect(throws: StoreError.self) {
                try await store.recordUsedState(key: "s", expiresAt: Date() + 60)
            }
            #expect(error?.kind == .unavailable)
            #expect(clock.now - start < .seconds(2))
            #expect(await !store.isHealthy())
        }
    }

    /// A stalled Redis (SIGSTOP) with many operations queued: each is answered `.unavailable` within the command
    /// timeout of its own call (the queue does not add them up), readiness answers without waiting in that queue and
    /// turns unhealthy, and after SIGCONT the same store serves again.
    @Test func stalledRedisAnswersEveryQueuedOperationWithinTheTimeout() async throws {
        try await withRedisServer { server in
            let timeout: Duration = .milliseconds(500)
            let store = try RedisSessionStore(address: server.address, commandTimeout: timeout)
            #expect(try await store.recordUsedState(key: "before", expiresAt: Date() + 60))
            server.signal(SIGSTOP)
            defer { server.signal(SIGCONT) }
            let clock = ContinuousClock()
            let bound = timeout + .milliseconds(500)
            // Ten operations and ten readiness checks at once; each says whether it failed and how long it took.
            let outcomes = await withTaskGroup(of: (readiness: Bool, failed: Bool, elapsed: Duration).self) { group in
                for index in 0..<10 {
                    group.addTask {
                        let began = clock.now
                        let failed = (try? await store.recordUsedState(key: "s\(index)", expiresAt: Date() + 60)) == nil
                        return (false, failed, clock.now - began)
                    }
                    group.addTask {
                        let began = clock.now
                        let problem = await store.healthProblem()
                        return (true, problem != nil, clock.now - began)
                    }
                }
                var outcomes: [(readiness: Bool, failed: Bool, elapsed: Duration)] = []
                for await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
            #expect(outcomes.count == 20)
            for outcome in outcomes {
                #expect(
                    outcome.elapsed < bound,
                    "\(outcome.readiness ? "readiness" : "an operation") took \(outcome.elapsed)")
                // No operation can have got a reply from a stopped server.
                #expect(outcome.readiness || outcome.failed)
            }
            let problem = await store.healthProblem()
            #expect(
                problem?.contains("within 0.5 s") == true || problem?.contains("next connection attempt") == true,
                "\(String(describing: problem))")

            server.signal(SIGCONT)
            var healthy = false
            for _ in 0..<100 where !healthy {
                healthy = await store.isHealthy()
                if !healthy { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(healthy)
            #expect(try await !store.recordUsedState(key: "before", expiresAt: Date() + 60))
        }
    }

    /// Redis older than 7.0 (a fake server answering `INFO server` as 6.2.14 would) is refused at connection, naming
    /// the version found and the one needed.
    @Test func redisOlderThan7IsRefusedNamingBothVersions() async throws {
        try await withStoreTemporaryDirectory { directory in
            let socket = directory.appendingPathComponent("old-redis.sock").path
            let fake = try await OldRedisFake.start(socket: socket, version: "6.2.14")
            try await withCleanup({ await fake.kill() }) {
                let store = try RedisSessionStore(address: RedisAddress(endpoint: .unix(path: socket)))
                let error = await #expect(throws: StoreError.self) {
                    try await store.recordUsedState(key: "s", expiresAt: Date() + 60)
                }
                let detail = error?.detail ?? ""
                #expect(detail.contains("Redis 6.2.14 at unix:\(socket) is too old"), "\(detail)")
                #expect(detail.contains("needs Redis 7.0.0 or later"), "\(detail)")
                #expect(await store.healthProblem()?.contains("6.2.14") == true)
            }
        }
    }

    @Test func serverVersionIsReadFromInfo() {
        let info = "# Server\r\nredis_version:7.0.15\r\nredis_git_sha1:00000000\r\n"
        #expect(RedisServerVersion(info: info) == RedisServerVersion(major: 7, minor: 0, patch: 15))
        #expect(RedisServerVersion(info: "redis_version:6.2.14") ?? .minimum < .minimum)
        #expect(RedisServerVersion(info: "redis_version:7.0.0").map { $0 >= .minimum } == true)
        #expect(RedisServerVersion(info: "redis_version:10.1.2").map { $0 >= .minimum } == true)
        #expect(RedisServerVersion(info: "# Server\r\n") == nil)
        #expect(RedisServerVersion(info: "redis_version:7.x") == nil)
    }

    /// After Redis restarts, the same store object works again: the broken connection is dropped and replaced.
    @Test func restartedRedisIsReconnected() async throws {
        try await withRedisServer { server in
            let store = try RedisSessionStore(address: server.address)
            #expect(try await store.recordUsedState(key: "before", expiresAt: Date() + 60))
            await server.stop()
            await #expect(throws: StoreError.self) { try await store.recordUsedState(key: "s", expiresAt: Date() + 60) }
            #expect(await !store.isHealthy())
            try await server.start()
            // Bounded by the backoff (2 s at most): an attempt every 50 ms for at most 5 s.
            var healthy = false
            for _ in 0..<100 {
                if await store.isHealthy() {
                    healthy = true
                    break
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(healthy)
            // A fresh server without persistence: the old record is gone, new ones work.
            #expect(try await store.recordUsedState(key: "before", expiresAt: Date() + 60))
            #expect(try await !store.recordUsedState(key: "before", expiresAt: Date() + 60))
        }
    }

    /// `requirepass`: the configured password is sent with AUTH; a wrong or missing one is a clear error.
    @Test func authenticatesWithThePassword() async throws {
        try await withRedisServer(password: "pw-for-tests") { server in
            let store = try RedisSessionStore(address: server.address, password: Secret("pw-for-tests"))
            #expect(try await store.recordUsedState(key: "s", expiresAt: Date() + 60))
            #expect(await store.isHealthy())

            let wrong = try RedisSessionStore(address: server.address, password: Secret("not-the-password"))
            let refused = await #expect(throws: StoreError.self) {
                try await wrong.recordUsedState(key: "t", expiresAt: Date() + 60)
            }
            #expect(refused?.detail.contains("redis AUTH at unix:") == true, "\(String(describing: refused))")
            #expect(refused?.detail.contains("WRONGPASS") == true, "\(String(describing: refused))")
            #expect(refused?.detail.contains("not-the-password") == false)
            #expect(await !wrong.isHealthy())

            let missing = try RedisSessionStore(address: server.address)
            let noAuth = await #expect(throws: StoreError.self) {
                try await missing.recordUsedState(key: "t", expiresAt: Date() + 60)
            }
            #expect(noAuth?.detail.contains("NOAUTH") == true, "\(String(describing: noAuth))")
        }
    }

    /// TCP works too, and the URL's database is selected.
    @Test func tcpAndDatabaseSelection() async throws {
        try await withRedisServer(tcp: true) { server in
            guard case .tcp(let host, let port) = server.address.endpoint else {
                Issue.record("not a TCP server")
                return
            }
            let text = "redis://\(host):\(port)/2"
            let address = try RedisAddress.parse(text).get()
            let store = try RedisSessionStore(address: address)
            #expect(try await store.recordUsedState(key: "s", expiresAt: Date() + 60))
            #expect(try server.command(["DBSIZE"]) == .integer(0))
            #expect(
                try server.command(["EVAL", "redis.call('SELECT', 2) return redis.call('DBSIZE')", "0"]) == .integer(1))
        }
    }

    /// `serve` builds a Redis store without connecting, so it starts while Redis is down (and /readyz says 503).
    @Test func makeStoreDoesNotConnect() async throws {
        let config = StoreConfig.redis(
            RedisStoreConfig(address: RedisAddress(endpoint: .unix(path: "/nonexistent/redis.sock"))))
        let (store, sqlitePath) = try config.makeStore(environment: SecretEnvironment(variables: [:]))
        #expect(sqlitePath == nil)
        #expect(store is RedisSessionStore)
        #expect(await !store.isHealthy())
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

}

/// A stand-in for an old Redis: a Python server on a Unix socket that answers every command with an `INFO server`
/// bulk string naming `version`. Started and killed by the test.
private enum OldRedisFake {
    static let script = """
        import socket, sys
        server = socket.socket(socket.AF_UNIX)
        server.bind(sys.argv[1])
        server.listen(8)
        print("ready", flush=True)
        info = ("# Server\\r\\nredis_version:%s\\r\\nredis_mode:standalone\\r\\n" % sys.argv[2]).encode()
        while True:
            client, _ = server.accept()
            while client.recv(65536):
                client.sendall(b"$%d\\r\\n%s\\r\\n" % (len(info), info))
            client.close()
        """

    /// Starts the fake on `socket` and returns once it says it listens.
    static func start(socket: String, version: String) async throws -> TestProcess {
        let process = try TestProcess("/usr/bin/python3", ["-c", script, socket, version], package: "python3")
        guard await process.waitForLine(startingWith: "ready") != nil else {
            await process.kill()
            throw TestProcessError("the fake old Redis did not start: \(process.standardError)")
        }
        return process
    }
}
