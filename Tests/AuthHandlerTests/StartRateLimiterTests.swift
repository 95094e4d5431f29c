import Foundation
import TestSupport
import Testing

@testable import AuthHandlerCore

struct StartRateLimiterTests {
    @Test func aBurstIsAllowedThenRefusedWithRetryAfter() {
        let clock = TestClock()
        let limiter = StartRateLimiter(StartRateLimit(perMinute: 30, burst: 10), now: clock.read)
        for index in 0..<10 {
            #expect(limiter.admit("192.0.2.1") == .allowed, "start \(index)")
        }
        // 30 a minute is one token every 2 seconds.
        #expect(limiter.admit("192.0.2.1") == .limited(retryAfterSeconds: 2))
    }

    @Test func tokensRefillWithTime() {
        let clock = TestClock()
        let limiter = StartRateLimiter(StartRateLimit(perMinute: 60, burst: 2), now: clock.read)
        #expect(limiter.admit("a") == .allowed)
        #expect(limiter.admit("a") == .allowed)
        #expect(limiter.admit("a") == .limited(retryAfterSeconds: 1))
        clock.advance(by: 1)
        #expect(limiter.admit("a") == .allowed)
        #expect(limiter.admit("a") == .limited(retryAfterSeconds: 1))
        clock.advance(by: 10)
        #expect(limiter.admit("a") == .allowed)
        #expect(limiter.admit("a") == .allowed)
        #expect(limiter.admit("a") == .limited(retryAfterSeconds: 1), "the bucket never holds more than burst")
    }

    @Test func retryAfterIsRoundedUpAndAtLeastOne() {
        let clock = TestClock()
        // 7 a minute: a token every 60/7 = 8.57 s.
        let limiter = StartRateLimiter(StartRateLimit(perMinute: 7, burst: 1), now: clock.read)
        #expect(limiter.admit("a") == .allowed)
        #expect(limiter.admit("a") == .limited(retryAfterSeconds: 9))
        clock.advance(by: 8)
        #expect(limiter.admit("a") == .limited(retryAfterSeconds: 1))
        clock.advance(by: 0.6)
        #expect(limiter.admit("a") == .allowed)
    }

    @Test func clientsAreIndependent() {
        let clock = TestClock()
        let limiter = StartRateLimiter(StartRateLimit(perMinute: 1, burst: 1), now: clock.read)
        #expect(limiter.admit("192.0.2.1") == .allowed)
        #expect(limiter.admit("192.0.2.1") == .limited(retryAfterSeconds: 60))
        #expect(limiter.admit("192.0.2.2") == .allowed)
        #expect(limiter.admit("2001:db8::/64") == .allowed)
    }

    @Test func refilledBucketsArePruned() {
        let clock = TestClock()
        let limiter = StartRateLimiter(StartRateLimit(perMinute: 60, burst: 5), sweepInterval: 60, now: clock.read)
        for client in 0..<50 { _ = limiter.admit("client-\(client)") }
        #expect(limiter.trackedClients == 50)
        clock.advance(by: 60)
        _ = limiter.admit("late")
        #expect(limiter.trackedClients == 1, "every bucket but the new one had refilled")
    }

    @Test func aBucketStillDrainingSurvivesTheSweep() {
        let clock = TestClock()
        let limiter = StartRateLimiter(StartRateLimit(perMinute: 1, burst: 5), sweepInterval: 60, now: clock.read)
        for _ in 0..<5 { _ = limiter.admit("busy") }
        _ = limiter.admit("idle")
        clock.advance(by: 60)
        _ = limiter.admit("late")
        #expect(limiter.trackedClients == 2, "busy has 1 of 5 tokens back and is kept; idle had refilled")
        #expect(limiter.admit("busy") == .allowed)
        #expect(limiter.admit("busy") == .limited(retryAfterSeconds: 60))
    }

    @Test func whenTheTableIsFullNewClientsShareOneOverflowBucket() {
        let clock = TestClock()
        let limiter = StartRateLimiter(StartRateLimit(perMinute: 1, burst: 2), maxClients: 3, now: clock.read)
        for client in ["a", "b", "c"] { #expect(limiter.admit(client) == .allowed) }
        #expect(limiter.trackedClients == 3)
        #expect(limiter.admit("new-1") == .allowed)
        #expect(limiter.admit("new-2") == .allowed)
        #expect(limiter.admit("new-3") == .limited(retryAfterSeconds: 60))
        #expect(limiter.trackedClients == 3, "the cap holds")
        #expect(limiter.admit("a") == .allowed, "a tracked client keeps its own allowance")
    }

    @Test func aFullTableMakesRoomOnceBucketsRefill() {
        let clock = TestClock()
        let limiter = StartRateLimiter(StartRateLimit(perMinute: 60, burst: 1), maxClients: 2, now: clock.read)
        _ = limiter.admit("a")
        _ = limiter.admit("b")
        clock.advance(by: 1)
        #expect(limiter.admit("c") == .allowed)
        #expect(limiter.trackedClients == 1)
    }

    @Test func concurrentAdmitsNeverExceedTheBurst() async {
        let limiter = StartRateLimiter(StartRateLimit(perMinute: 1, burst: 10))
        let allowed = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<100 { group.addTask { limiter.admit("same") == .allowed } }
            var count = 0
            for await admitted in group where admitted { count += 1 }
            return count
        }
        #expect(allowed == 10)
    }
}

struct OutboundCallLimitTests {
    @Test func atMostMaximumPermitsAreOut() {
        let limit = OutboundCallLimit(maximum: 2)
        #expect(limit.tryAcquire())
        #expect(limit.tryAcquire())
        #expect(!limit.tryAcquire())
        #expect(limit.inUse == 2)
        limit.release()
        #expect(limit.tryAcquire())
        #expect(!limit.tryAcquire())
    }

    @Test func anUnmatchedReleaseDoesNotAddAPermit() {
        let limit = OutboundCallLimit(maximum: 1)
        limit.release()
        #expect(limit.inUse == 0)
        #expect(limit.tryAcquire())
        #expect(!limit.tryAcquire())
    }

    @Test func withPermitReleasesAfterTheBodyEvenWhenItThrows() async throws {
        struct Failure: Error {}
        let limit = OutboundCallLimit(maximum: 1)
        let value = await limit.withPermit { limit.inUse }
        #expect(value == 1)
        #expect(limit.inUse == 0)
        await #expect(throws: Failure.self) { _ = try await limit.withPermit { throw Failure() } }
        #expect(limit.inUse == 0)
        #expect(limit.tryAcquire())
        #expect(await limit.withPermit { 1 } == nil, "no permit free: the body does not run")
    }
}
