import AuthHandlerCrypto
import TestSupport
import Testing

@testable import AuthHandlerAccounts

/// `HashingBudget`: a token bucket per client, taken before any hashing (issue 25 §3 "Hashing is a budget").
@Suite struct AccountsHashingBudgetTests {
    let alice = ClientKey(resolved: "192.0.2.1")
    let bob = ClientKey(resolved: "192.0.2.2")

    @Test("burst tokens, then Retry-After until the next one; clients are counted apart")
    func bucket() {
        let clock = TestClock()
        let budget = HashingBudget(perMinute: 30, burst: 5, now: clock.read)
        for _ in 0..<5 { #expect(budget.take(for: alice) == .allowed) }
        #expect(budget.take(for: alice) == .limited(retryAfterSeconds: 2))
        #expect(budget.take(for: bob) == .allowed)
        clock.advance(by: 1)
        #expect(budget.take(for: alice) == .limited(retryAfterSeconds: 1))
        clock.advance(by: 1)
        #expect(budget.take(for: alice) == .allowed)
        #expect(budget.take(for: alice) == .limited(retryAfterSeconds: 2))
        #expect(HashingBudget(now: clock.read).burst == 5)
        #expect(HashingBudget(now: clock.read).refillPerSecond == 10.0 / 60)
    }

    @Test("memory is bounded: refilled buckets are swept, and past the cap new clients share one bucket")
    func bounded() {
        let clock = TestClock()
        let budget = HashingBudget(perMinute: 60, burst: 1, maxClients: 2, now: clock.read)
        #expect(budget.take(for: alice) == .allowed)
        #expect(budget.take(for: bob) == .allowed)
        #expect(budget.trackedClients == 2)
        let carol = ClientKey(resolved: "192.0.2.3")
        let dave = ClientKey(resolved: "192.0.2.4")
        #expect(budget.take(for: carol) == .allowed)
        #expect(budget.take(for: dave) == .limited(retryAfterSeconds: 1))
        #expect(budget.trackedClients == 2)
        clock.advance(by: 61)
        #expect(budget.take(for: carol) == .allowed)
        #expect(budget.trackedClients == 1)
    }

    @Test("a spent budget answers 429 without calling the hasher")
    func limitedWithoutHashing() async throws {
        let engine = CountingEngine()
        let clock = TestClock()
        let budget = HashingBudget(perMinute: 1, burst: 2, now: clock.read)
        let hasher = try PasswordHasher(parameters: .cheap, budget: budget, poolSize: 1, engine: engine)
        let password = try NormalizedPassword("a long enough password")
        #expect(engine.hashes == 1)  // the dummy hash, at start
        #expect(try await hasher.verify(password, against: nil, client: alice) == .done(.mismatch))
        guard case .done = try await hasher.hash(password, client: alice) else {
            Issue.record("the second call should hash")
            return
        }
        let (hashes, verifies) = (engine.hashes, engine.verifies)
        #expect(try await hasher.verify(password, against: nil, client: alice) == .limited(retryAfterSeconds: 60))
        #expect(try await hasher.hash(password, client: alice) == .limited(retryAfterSeconds: 60))
        #expect(engine.hashes == hashes)
        #expect(engine.verifies == verifies)
        #expect(hasher.snapshot().limited == 2)
    }
}
