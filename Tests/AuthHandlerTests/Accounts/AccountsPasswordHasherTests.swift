import AuthHandlerCrypto
import Foundation
import Synchronization
import Testing

@testable import AuthHandlerAccounts

/// `PasswordHasher` and its `HashingPool`: argon2id off the caller's threads, bounded, with a dummy hash for unknown
/// e-mails and rehashing of weaker hashes (issue 25 §3).
@Suite struct AccountsPasswordHasherTests {
    let alice = ClientKey(resolved: "192.0.2.1")
    let bob = ClientKey(resolved: "192.0.2.2")

    static func generousBudget() -> HashingBudget { HashingBudget(perMinute: 10_000, burst: 10_000) }

    @Test("a hash verifies its password, not another; no stored hash never matches")
    func hashAndVerify() async throws {
        let hasher = try PasswordHasher(parameters: .cheap, budget: Self.generousBudget(), poolSize: 1)
        let password = try NormalizedPassword("correct horse battery staple")
        guard case .done(let stored) = try await hasher.hash(password, client: alice) else {
            Issue.record("not hashed")
            return
        }
        #expect(stored.hasPrefix("$argon2id$v=19$m=1024,t=1,p=1$"))
        #expect(try await hasher.verify(password, against: stored, client: alice) == .done(.match(rehashed: nil)))
        let wrong = try NormalizedPassword("correct horse battery stapler")
        #expect(try await hasher.verify(wrong, against: stored, client: alice) == .done(.mismatch))
        #expect(try await hasher.verify(password, against: nil, client: alice) == .done(.mismatch))
        // The full-width form typed at sign-in is the same password.
        let fullWidth = try NormalizedPassword("ｃｏｒｒｅｃｔ ｈｏｒｓｅ ｂａｔｔｅｒｙ ｓｔａｐｌｅ")
        #expect(try await hasher.verify(fullWidth, against: stored, client: alice) == .done(.match(rehashed: nil)))
        let snapshot = hasher.snapshot()
        #expect(snapshot.completed == 5)
        #expect(snapshot.totalDuration > .zero)
        #expect(snapshot.queued == 0 && snapshot.running == 0)
        // The place is freed before the answer: a client answered at once may queue again at once.
        let pool = HashingPool(size: 1, maxPerClient: 1)
        defer { pool.shutdown() }
        let answered = await withCheckedContinuation { continuation in
            _ = pool.submit(client: alice) { { continuation.resume(returning: true) } }
        }
        #expect(answered && pool.submit(client: alice) { {} } == nil)
    }

    @Test("a hash runs on the pool's own thread, and the reporter hears each duration")
    func ownThread() async throws {
        let slot = Mutex<PasswordHasher?>(nil)
        let onPool = Mutex<[Bool]>([])
        let hasher = try PasswordHasher(
            parameters: .cheap, budget: Self.generousBudget(), poolSize: 1,
            reporter: { _ in
                let worker = slot.withLock { $0?.pool.isCurrentThreadWorker ?? false }
                onPool.withLock { $0.append(worker) }
            })
        slot.withLock { $0 = hasher }
        #expect(!hasher.pool.isCurrentThreadWorker)
        _ = try await hasher.verify(try NormalizedPassword("whatever password"), against: nil, client: alice)
        #expect(onPool.withLock { $0 } == [true])
        slot.withLock { $0 = nil }
    }

    @Test("rehash when the stored hash has less memory or fewer passes than configured")
    func needsRehash() throws {
        let configured = Argon2id.Parameters(memoryKiB: 19456, iterations: 2, parallelism: 1)
        func stored(_ m: UInt32, _ t: UInt32, _ p: UInt32 = 1) -> String {
            "$argon2id$v=19$m=\(m),t=\(t),p=\(p)$c2FsdA$aGFzaA"
        }
        #expect(!PasswordHasher.needsRehash(stored: stored(19456, 2), configured: configured))
        #expect(!PasswordHasher.needsRehash(stored: stored(47104, 2), configured: configured))
        #expect(!PasswordHasher.needsRehash(stored: stored(19456, 3, 2), configured: configured))
        #expect(PasswordHasher.needsRehash(stored: stored(19455, 2), configured: configured))
        #expect(PasswordHasher.needsRehash(stored: stored(47104, 1), configured: configured))
        #expect(PasswordHasher.needsRehash(stored: "$2b$12$somebcrypthash", configured: configured))
    }

    @Test("a sign-in against a weaker hash answers a new one at the configured parameters")
    func rehashOnMatch() async throws {
        let password = try NormalizedPassword("correct horse battery staple")
        let weak = try Argon2id.hash(password.utf8, parameters: .cheap)
        let configured = Argon2id.Parameters(memoryKiB: 2048, iterations: 2, parallelism: 1)
        let hasher = try PasswordHasher(parameters: configured, budget: Self.generousBudget(), poolSize: 1)
        guard case .done(.match(let rehashed?)) = try await hasher.verify(password, against: weak, client: alice)
        else {
            Issue.record("no rehash")
            return
        }
        #expect(Argon2id.Parameters(encoded: rehashed) == configured)
        #expect(try Argon2id.verify(password.utf8, encoded: rehashed))
        let wrong = try NormalizedPassword("not the password at all")
        #expect(try await hasher.verify(wrong, against: weak, client: alice) == .done(.mismatch))
    }

    @Test("the pool's queue holds twice its size; beyond that a job is refused at once")
    func queueBound() {
        let pool = HashingPool(size: 1)
        defer { pool.shutdown() }
        let gate = DispatchSemaphore(value: 0)
        let clients = (1...4).map { ClientKey(resolved: "192.0.2.\($0)") }
        #expect(
            pool.submit(client: clients[0]) {
                gate.wait(); return {}
            } == nil)
        #expect(
            pool.submit(client: clients[1]) {
                gate.wait(); return {}
            } == nil)
        #expect(
            pool.submit(client: clients[2]) {
                gate.wait(); return {}
            } == nil)
        #expect(
            pool.submit(client: clients[3]) {
                gate.wait(); return {}
            } == .queueFull)
        for _ in 0..<3 { gate.signal() }
    }

    @Test("one client has at most 2 entries in the pool; other clients are still taken")
    func perClientBound() {
        let pool = HashingPool(size: 4)
        defer { pool.shutdown() }
        let gate = DispatchSemaphore(value: 0)
        #expect(
            pool.submit(client: alice) {
                gate.wait(); return {}
            } == nil)
        #expect(
            pool.submit(client: alice) {
                gate.wait(); return {}
            } == nil)
        #expect(
            pool.submit(client: alice) {
                gate.wait(); return {}
            } == .clientFull)
        #expect(
            pool.submit(client: bob) {
                gate.wait(); return {}
            } == nil)
        for _ in 0..<3 { gate.signal() }
    }

    @Test("through the hasher: a third concurrent sign-in of one client is busy at once, another client is served")
    func busy() async throws {
        let engine = CountingEngine(holding: true)
        let hasher = try PasswordHasher(
            parameters: .cheap, budget: Self.generousBudget(), poolSize: 2, engine: engine)
        let password = try NormalizedPassword("a long enough password")
        let first = Task { try await hasher.verify(password, against: nil, client: alice) }
        let second = Task { try await hasher.verify(password, against: nil, client: alice) }
        var started = engine.started.makeAsyncIterator()
        _ = await started.next()
        _ = await started.next()
        #expect(hasher.snapshot().running == 2)
        guard case .busy(let seconds) = try await hasher.verify(password, against: nil, client: alice) else {
            Issue.record("a third entry of one client was not refused")
            engine.release(2)
            return
        }
        #expect(seconds >= 1)
        #expect(hasher.snapshot().busy == 1)
        let other = Task { try await hasher.verify(password, against: nil, client: bob) }
        engine.release(2)
        #expect(try await other.value == .done(.mismatch))
        #expect(try await first.value == .done(.mismatch))
        #expect(try await second.value == .done(.mismatch))
    }

    @Test(
        "an unknown e-mail is checked against a real argon2id hash at the configured parameters, as a wrong password is"
    )
    func dummyIsARealHashAtTheConfiguredCost() async throws {
        let parameters = Argon2id.Parameters(memoryKiB: 2048, iterations: 2, parallelism: 1)
        let engine = CountingEngine()
        let hasher = try PasswordHasher(
            parameters: parameters, budget: Self.generousBudget(), poolSize: 1, engine: engine)
        let stored = try Argon2id.hash(Array("the real password".utf8), parameters: parameters)
        let wrong = try NormalizedPassword("a wrong password")
        #expect(try await hasher.verify(wrong, against: nil, client: alice) == .done(.mismatch))
        #expect(try await hasher.verify(wrong, against: stored, client: alice) == .done(.mismatch))
        // Both are one argon2id verification, of a hash with the same parameters and the same lengths: the work is
        // the same, which is what makes the time the same (the timing test below measures it).
        let checked = engine.verified
        try #require(checked.count == 2)
        let (dummy, real) = (checked[0].split(separator: "$"), checked[1].split(separator: "$"))
        #expect(dummy.count == 5 && real.count == 5)
        #expect(Array(dummy.prefix(3)) == Array(real.prefix(3)), "algorithm, version and parameters")
        #expect(dummy.dropFirst(3).map(\.count) == real.dropFirst(3).map(\.count), "salt and hash lengths")
        #expect(checked[0] != checked[1])
    }

    /// Timing on a shared machine is noisy in one direction only (a preempted run is slower, never faster), so each
    /// side's fastest of many interleaved runs is its cost; a measurement disturbed throughout is taken again, at
    /// most three times.
    @Test("an unknown e-mail (the dummy hash) takes about as long as a wrong password: fastest runs within 25%")
    func dummyTiming() async throws {
        // Large enough that the hash, not the hop to the pool's thread, is most of the time on a loaded machine.
        let parameters = Argon2id.Parameters(memoryKiB: 8192, iterations: 2, parallelism: 1)
        let hasher = try PasswordHasher(parameters: parameters, budget: Self.generousBudget(), poolSize: 1)
        let stored = try Argon2id.hash(Array("the real password".utf8), parameters: parameters)
        let wrong = try NormalizedPassword("a wrong password")
        let clock = ContinuousClock()
        var measured: [(dummy: Duration, real: Duration)] = []
        for _ in 0..<3 {
            var dummy: [Duration] = []
            var real: [Duration] = []
            for run in 0..<21 {
                // Alternating which goes first cancels a drift in the machine's load.
                for checksDummy in run.isMultiple(of: 2) ? [true, false] : [false, true] {
                    let elapsed = try await clock.measure {
                        _ = try await hasher.verify(wrong, against: checksDummy ? nil : stored, client: alice)
                    }
                    if checksDummy { dummy.append(elapsed) } else { real.append(elapsed) }
                }
            }
            let fastest = (dummy: dummy.min() ?? .zero, real: real.min() ?? .zero)
            measured.append(fastest)
            let ratio = fastest.dummy / fastest.real
            if ratio > 0.75 && ratio < 1.25 { return }
        }
        Issue.record("dummy and wrong password differ by more than 25% in three measurements: \(measured)")
    }
}
