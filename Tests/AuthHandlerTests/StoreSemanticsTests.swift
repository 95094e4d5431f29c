import Foundation
import TestSupport
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP
@testable import AuthHandlerStore

/// The one-time semantics every `SessionStore` must give the flow, the windowed counts of every `CounterStore` and the
/// records and decisions of every `DeviceStore`, run against each implementation.
struct StoreSemanticsTests {
    // MARK: Used states

    @Test(arguments: StoreKind.allCases)
    func usedStateIsRecordedOnce(kind: StoreKind) async throws {
        let clock = TestClock.startingNow()
        try await withStore(kind, clock: clock) { store throws in
            #expect(try await store.recordUsedState(key: "state-1", expiresAt: clock.date + 60))
            #expect(try await !store.recordUsedState(key: "state-1", expiresAt: clock.date + 60))
            // A replay with a later expiry is still a replay.
            #expect(try await !store.recordUsedState(key: "state-1", expiresAt: clock.date + 6000))
            #expect(try await store.recordUsedState(key: "state-2", expiresAt: clock.date + 60))
            #expect(try await !store.recordUsedState(key: "state-2", expiresAt: clock.date + 60))
        }
    }

    /// A record holds until exactly `expiresAt` on the store's clock; after that the state may be recorded again,
    /// and that second record holds until its own expiry.
    // Moves the test clock: Redis expires by its own, so StoreRedisTests covers this with real TTLs.
    @Test(arguments: StoreKind.followingTestClock)
    func usedStateCanBeRecordedAgainOnceExpired(kind: StoreKind) async throws {
        let clock = TestClock.startingNow()
        let start = clock.date
        try await withStore(kind, clock: clock) { store throws in
            #expect(try await store.recordUsedState(key: "state-1", expiresAt: start + 10))
            clock.advance(by: 9.5)
            #expect(try await !store.recordUsedState(key: "state-1", expiresAt: start + 100))
            clock.advance(by: 0.5)
            #expect(try await store.recordUsedState(key: "state-1", expiresAt: start + 100))
            #expect(try await !store.recordUsedState(key: "state-1", expiresAt: start + 100))
            clock.advance(by: 89.5)
            #expect(try await !store.recordUsedState(key: "state-1", expiresAt: start + 200))
            clock.advance(by: 1)
            #expect(try await store.recordUsedState(key: "state-1", expiresAt: start + 200))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func fiftyConcurrentRecordersOneWins(kind: StoreKind) async throws {
        let clock = TestClock.startingNow()
        let expiresAt = clock.date + 60
        try await withStore(kind, clock: clock) { store in
            let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<50 {
                    group.addTask { try await store.recordUsedState(key: "state-race", expiresAt: expiresAt) }
                }
                var winners = 0
                for try await recorded in group where recorded { winners += 1 }
                return winners
            }
            #expect(winners == 1)
            #expect(try await !store.recordUsedState(key: "state-race", expiresAt: expiresAt))
        }
    }

    /// Once its record has expired, a state may be recorded again by exactly one of many concurrent callers.
    // Moves the test clock: Redis expires by its own, so StoreRedisTests covers this with real TTLs.
    @Test(arguments: StoreKind.followingTestClock)
    func fiftyConcurrentRecordersOfAnExpiredStateOneWins(kind: StoreKind) async throws {
        let clock = TestClock.startingNow()
        try await withStore(kind, clock: clock) { store in
            #expect(try await store.recordUsedState(key: "state-race", expiresAt: clock.date + 10))
            clock.advance(by: 10)
            let expiresAt = clock.date + 60
            let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<50 {
                    group.addTask { try await store.recordUsedState(key: "state-race", expiresAt: expiresAt) }
                }
                var winners = 0
                for try await recorded in group where recorded { winners += 1 }
                return winners
            }
            #expect(winners == 1)
        }
    }

    // MARK: Results

    /// Peeking reads without claiming, however often.
    @Test(arguments: StoreKind.allCases)
    func peekDoesNotClaim(kind: StoreKind) async throws {
        let clock = TestClock.startingNow()
        let now = clock.date
        try await withStore(kind, clock: clock) { store in
            try await store.insertResult(code: "code-1", payload: storeBytes("result"), expiresAt: now + 120)
            #expect(try await store.peekResult(code: "code-1", now: now) == .available(storeBytes("result")))
            #expect(try await store.peekResult(code: "code-1", now: now + 1) == .available(storeBytes("result")))
            #expect(try await store.claimResult(code: "code-1", now: now + 2) == .available(storeBytes("result")))
            #expect(try await store.peekResult(code: "never-inserted", now: now) == .absent)
            #expect(try await store.claimResult(code: "never-inserted", now: now) == .absent)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func claimHoldsReleaseRestores(kind: StoreKind) async throws {
        let clock = TestClock.startingNow()
        let now = clock.date
        try await withStore(kind, clock: clock) { store in
            try await store.insertResult(code: "code-1", payload: storeBytes("result"), expiresAt: now + 120)
            try await store.insertResult(code: "code-2", payload: storeBytes("other"), expiresAt: now + 120)
            #expect(try await store.claimResult(code: "code-1", now: now) == .available(storeBytes("result")))
            #expect(try await store.claimResult(code: "code-1", now: now + 1) == .claimed)
            #expect(try await store.peekResult(code: "code-1", now: now + 1) == .claimed)
            // A claim holds only its own result.
            #expect(try await store.peekResult(code: "code-2", now: now + 1) == .available(storeBytes("other")))

            try await store.releaseResult(code: "code-1")
            #expect(try await store.peekResult(code: "code-1", now: now + 2) == .available(storeBytes("result")))
            #expect(try await store.claimResult(code: "code-1", now: now + 2) == .available(storeBytes("result")))
            #expect(try await store.claimResult(code: "code-1", now: now + 3) == .claimed)
            // Releasing an unclaimed or unknown result changes nothing.
            try await store.releaseResult(code: "code-2")
            try await store.releaseResult(code: "never-inserted")
            #expect(try await store.claimResult(code: "code-2", now: now + 3) == .available(storeBytes("other")))
            #expect(try await store.peekResult(code: "never-inserted", now: now + 3) == .absent)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func deleteMakesResultGone(kind: StoreKind) async throws {
        let clock = TestClock.startingNow()
        let now = clock.date
        try await withStore(kind, clock: clock) { store in
            try await store.insertResult(code: "code-1", payload: storeBytes("result"), expiresAt: now + 120)
            try await store.insertResult(code: "code-2", payload: storeBytes("unclaimed"), expiresAt: now + 120)
            #expect(try await store.claimResult(code: "code-1", now: now) == .available(storeBytes("result")))
            try await store.deleteResult(code: "code-1")
            // A release after the delete does not bring it back.
            try await store.releaseResult(code: "code-1")
            #expect(try await store.peekResult(code: "code-1", now: now + 60) == .absent)
            #expect(try await store.claimResult(code: "code-1", now: now + 60) == .absent)
            // Deleting an unclaimed result removes it too.
            try await store.deleteResult(code: "code-2")
            #expect(try await store.peekResult(code: "code-2", now: now) == .absent)
            #expect(try await store.claimResult(code: "code-2", now: now) == .absent)
            try await store.deleteResult(code: "code-never-inserted")
        }
    }

    /// Expired at exactly `expiresAt`, for peek and claim alike.
    // Moves the test clock: Redis expires by its own, so StoreRedisTests covers this with real TTLs.
    @Test(arguments: StoreKind.followingTestClock)
    func expiredResultIsAbsent(kind: StoreKind) async throws {
        let clock = TestClock.startingNow()
        let now = clock.date
        try await withStore(kind, clock: clock) { store in
            try await store.insertResult(code: "code-1", payload: storeBytes("result"), expiresAt: now + 60)
            #expect(try await store.peekResult(code: "code-1", now: now + 60) == .absent)
            #expect(try await store.claimResult(code: "code-1", now: now + 60) == .absent)
            #expect(try await store.peekResult(code: "code-1", now: now + 61) == .absent)
            #expect(try await store.claimResult(code: "code-1", now: now + 61) == .absent)
            // Looking at an expired result did not claim it.
            #expect(try await store.claimResult(code: "code-1", now: now + 59) == .available(storeBytes("result")))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func fiftyConcurrentClaimsOneWins(kind: StoreKind) async throws {
        let clock = TestClock.startingNow()
        let now = clock.date
        try await withStore(kind, clock: clock) { store in
            try await store.insertResult(code: "code-race", payload: storeBytes("result"), expiresAt: now + 60)
            let lookups = try await withThrowingTaskGroup(of: ResultLookup.self) { group in
                for _ in 0..<50 {
                    group.addTask { try await store.claimResult(code: "code-race", now: now) }
                }
                var lookups: [ResultLookup] = []
                for try await lookup in group { lookups.append(lookup) }
                return lookups
            }
            #expect(lookups.filter { $0 == .available(storeBytes("result")) }.count == 1)
            #expect(lookups.filter { $0 == .claimed }.count == 49)
        }
    }

    /// A claim ends by release or delete, never by lapsing while the result could still be redeemed: a redemption
    /// whose delete failed must not let the same code succeed a second time.
    // Moves the test clock: Redis expires by its own, so StoreRedisTests covers this with real TTLs.
    @Test(arguments: StoreKind.followingTestClock)
    func claimDoesNotLapseBeforeTheResultExpires(kind: StoreKind) async throws {
        let clock = TestClock.startingNow()
        let now = clock.date
        try await withStore(kind, clock: clock) { store in
            try await store.insertResult(code: "code-1", payload: storeBytes("result"), expiresAt: now + 120)
            #expect(try await store.claimResult(code: "code-1", now: now) == .available(storeBytes("result")))
            for offset: TimeInterval in [1, 30, 60, 90, 119, 119.999] {
                #expect(try await store.claimResult(code: "code-1", now: now + offset) == .claimed)
                #expect(try await store.peekResult(code: "code-1", now: now + offset) == .claimed)
            }
            #expect(try await store.claimResult(code: "code-1", now: now + 120) == .absent)
            #expect(try await store.peekResult(code: "code-1", now: now + 120) == .absent)
            #expect(try await store.claimResult(code: "code-1", now: now + 121) == .absent)
            #expect(try await store.peekResult(code: "code-1", now: now + 121) == .absent)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func emptyPayloadRoundTrips(kind: StoreKind) async throws {
        let clock = TestClock.startingNow()
        try await withStore(kind, clock: clock) { store in
            try await store.insertResult(code: "code-1", payload: [], expiresAt: clock.date + 60)
            #expect(try await store.peekResult(code: "code-1", now: clock.date) == .available([]))
            #expect(try await store.claimResult(code: "code-1", now: clock.date) == .available([]))
            #expect(try await store.peekResult(code: "code-1", now: clock.date) == .claimed)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func binaryPayloadRoundTrips(kind: StoreKind) async throws {
        let clock = TestClock.startingNow()
        let payload = (0...255).map { UInt8($0) } + [0, 0, 0]
        try await withStore(kind, clock: clock) { store in
            try await store.insertResult(code: "code-1", payload: payload, expiresAt: clock.date + 60)
            #expect(try await store.peekResult(code: "code-1", now: clock.date) == .available(payload))
            #expect(try await store.claimResult(code: "code-1", now: clock.date) == .available(payload))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func duplicateCodeIsRefused(kind: StoreKind) async throws {
        let clock = TestClock.startingNow()
        try await withStore(kind, clock: clock) { store in
            try await store.insertResult(code: "code-1", payload: storeBytes("first"), expiresAt: clock.date + 60)
            let error = await #expect(throws: StoreError.self) {
                try await store.insertResult(code: "code-1", payload: storeBytes("second"), expiresAt: clock.date + 60)
            }
            #expect(error?.kind == .unavailable)
            #expect(try await store.claimResult(code: "code-1", now: clock.date) == .available(storeBytes("first")))
        }
    }

    // MARK: Both

    /// Used states and results are kept apart: a result whose code equals a used state is unaffected by it, and back.
    @Test(arguments: StoreKind.allCases)
    func usedStatesAndResultsAreSeparate(kind: StoreKind) async throws {
        let clock = TestClock.startingNow()
        try await withStore(kind, clock: clock) { store in
            #expect(try await store.recordUsedState(key: "same", expiresAt: clock.date + 60))
            try await store.insertResult(code: "same", payload: storeBytes("result"), expiresAt: clock.date + 60)
            #expect(try await store.claimResult(code: "same", now: clock.date) == .available(storeBytes("result")))
            try await store.deleteResult(code: "same")
            #expect(try await !store.recordUsedState(key: "same", expiresAt: clock.date + 60))
        }
    }

    /// Sweep removes expired rows of both kinds, claimed or not, so they are gone even for an earlier clock.
    // Moves the test clock: Redis expires by its own, so StoreRedisTests covers this with real TTLs.
    @Test(arguments: StoreKind.followingTestClock)
    func sweepRemovesOnlyExpiredRowsAndCountsThem(kind: StoreKind) async throws {
        let clock = TestClock.startingNow()
        let now = clock.date
        try await withStore(kind, clock: clock) { store in
            #expect(try await store.recordUsedState(key: "old-1", expiresAt: now + 10))
            #expect(try await store.recordUsedState(key: "old-2", expiresAt: now + 20))
            #expect(try await store.recordUsedState(key: "live", expiresAt: now + 100))
            try await store.insertResult(code: "old-code", payload: storeBytes("d"), expiresAt: now + 20)
            try await store.insertResult(code: "claimed-old-code", payload: storeBytes("e"), expiresAt: now + 20)
            try await store.insertResult(code: "live-code", payload: storeBytes("f"), expiresAt: now + 100)
            #expect(try await store.claimResult(code: "claimed-old-code", now: now) == .available(storeBytes("e")))

            #expect(try await store.sweep(now: now) == 0)
            #expect(try await store.sweep(now: now + 10) == 1)
            #expect(try await store.sweep(now: now + 20) == 3)
            #expect(try await store.sweep(now: now + 20) == 0)

            // The store's clock still reads `now`, at which the swept rows had not expired: only a removed row
            // records or reads like this.
            #expect(try await store.recordUsedState(key: "old-1", expiresAt: now + 100))
            #expect(try await store.recordUsedState(key: "old-2", expiresAt: now + 100))
            #expect(try await !store.recordUsedState(key: "live", expiresAt: now + 100))
            #expect(try await store.peekResult(code: "old-code", now: now) == .absent)
            #expect(try await store.claimResult(code: "claimed-old-code", now: now) == .absent)
            #expect(try await store.claimResult(code: "live-code", now: now + 50) == .available(storeBytes("f")))
            // The two states recorded again and the live ones remain.
            #expect(try await store.sweep(now: now + 100) == 4)
        }
    }

    // MARK: Counters

    /// A count goes up by one a call, per key, within one window that its first count opened; a refund takes one
    /// back, removes a counter at 1, and creates nothing for a key that has no counter.
    @Test(arguments: StoreKind.allCases)
    func countersCountPerKeyAndRefundsTakeOneBack(kind: StoreKind) async throws {
        let window = Duration.seconds(60)
        try await withStore(kind) { store in
            for expected in 1...3 {
                let reading = try await store.incrementCounter(key: "address-a", window: window)
                #expect(reading.count == expected)
                #expect(reading.remaining > .zero && reading.remaining <= window)
            }
            #expect(try await store.incrementCounter(key: "address-b", window: window).count == 1)
            try await store.decrementCounter(key: "address-a")
            #expect(try await store.incrementCounter(key: "address-a", window: window).count == 3)

            try await store.decrementCounter(key: "address-b")
            try await store.decrementCounter(key: "address-b")
            #expect(try await store.incrementCounter(key: "address-b", window: window).count == 1)
            try await store.decrementCounter(key: "never-counted")
            #expect(try await store.incrementCounter(key: "never-counted", window: window).count == 1)
        }
    }

    /// Counting is one atomic step: fifty concurrent callers are told fifty different counts.
    @Test(arguments: StoreKind.allCases)
    func fiftyConcurrentCountsAreEachToldADifferentCount(kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let counts = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<50 {
                    group.addTask { try await store.incrementCounter(key: "address-race", window: .seconds(60)).count }
                }
                var counts: [Int] = []
                for try await count in group { counts.append(count) }
                return counts
            }
            #expect(counts.sorted() == Array(1...50))
        }
    }

    /// The window opens with the first count and no later count or refund moves its end; when it has passed, the next
    /// count opens a new window at 1, and a refund after it revives nothing.
    // Moves the test clock: Redis expires by its own, so StoreRedisTests covers this with real TTLs.
    @Test(arguments: StoreKind.followingTestClock)
    func aCounterWindowClosesOnTheStoresClock(kind: StoreKind) async throws {
        let clock = TestClock.startingNow()
        try await withStore(kind, clock: clock) { store in
            #expect(
                try await store.incrementCounter(key: "a", window: .seconds(60))
                    == CounterReading(count: 1, remaining: .seconds(60)))
            #expect(
                try await store.incrementCounter(key: "a", window: .seconds(60))
                    == CounterReading(count: 2, remaining: .seconds(60)))
            clock.advance(by: 59.5)
            try await store.decrementCounter(key: "a")
            #expect(
                try await store.incrementCounter(key: "a", window: .seconds(60))
                    == CounterReading(count: 2, remaining: .milliseconds(500)))
            clock.advance(by: 0.5)
            try await store.decrementCounter(key: "a")
            #expect(
                try await store.incrementCounter(key: "a", window: .seconds(60))
                    == CounterReading(count: 1, remaining: .seconds(60)))
        }
    }

    /// Sweep removes counters whose window has passed, and only those.
    // Moves the test clock: Redis expires by its own.
    @Test(arguments: StoreKind.followingTestClock)
    func sweepRemovesClosedCounters(kind: StoreKind) async throws {
        let clock = TestClock.startingNow()
        let now = clock.date
        try await withStore(kind, clock: clock) { store in
            _ = try await store.incrementCounter(key: "short", window: .seconds(10))
            _ = try await store.incrementCounter(key: "long", window: .seconds(100))
            _ = try await store.incrementCounter(key: "long", window: .seconds(100))
            #expect(try await store.sweep(now: now + 9) == 0)
            #expect(try await store.sweep(now: now + 10) == 1)
            // At the store's clock (still `now`), the swept counter starts again; the other one kept its count.
            #expect(try await store.incrementCounter(key: "short", window: .seconds(10)).count == 1)
            #expect(try await store.incrementCounter(key: "long", window: .seconds(100)).count == 3)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func freshStoreIsHealthy(kind: StoreKind) async throws {
        try await withStore(kind) { store in
            #expect(await store.isHealthy())
        }
    }

    // MARK: Device records (DeviceStore)

    /// A record reads back as it was put, each kind in a namespace of its own, an empty and a binary payload included;
    /// an unknown key reads as nil.
    @Test(arguments: StoreKind.allCases)
    func deviceRecordsReadBackPerKindAndKey(kind: StoreKind) async throws {
        let clock = TestClock.startingNow()
        try await withDeviceStore(kind, clock: clock) { store throws in
            let binary = (0...255).map { UInt8($0) }
            try await store.putDeviceRecord(
                kind: .grant, key: "k", payload: storeBytes("grant"), expiresAt: clock.date + 60)
            #expect(try await store.deviceRecord(kind: .grant, key: "k", now: clock.date) == storeBytes("grant"))
            #expect(try await store.deviceRecord(kind: .request, key: "k", now: clock.date) == nil)
            #expect(try await store.deviceRecord(kind: .decision, key: "k", now: clock.date) == nil)
            try await store.putDeviceRecord(kind: .request, key: "k", payload: binary, expiresAt: clock.date + 60)
            try await store.putDeviceRecord(kind: .decision, key: "k", payload: [], expiresAt: clock.date + 60)
            #expect(try await store.deviceRecord(kind: .request, key: "k", now: clock.date) == binary)
            #expect(try await store.deviceRecord(kind: .decision, key: "k", now: clock.date) == [])
            #expect(try await store.deviceRecord(kind: .grant, key: "k", now: clock.date) == storeBytes("grant"))
            #expect(try await store.deviceRecord(kind: .grant, key: "other", now: clock.date) == nil)
        }
    }

    /// A second record of one kind under one key is a `.conflict` that leaves the first as it was.
    @Test(arguments: StoreKind.allCases)
    func aSecondDeviceRecordUnderOneKeyIsAConflict(kind: StoreKind) async throws {
        let clock = TestClock.startingNow()
        try await withDeviceStore(kind, clock: clock) { store throws in
            try await store.putDeviceRecord(kind: .request, key: "user-code", payload: [1], expiresAt: clock.date + 60)
            let error = await #expect(throws: StoreError.self) {
                try await store.putDeviceRecord(
                    kind: .request, key: "user-code", payload: [2], expiresAt: clock.date + 600)
            }
            #expect(error?.kind == .conflict)
            #expect(error?.detail.contains("user-code") == false)
            #expect(try await store.deviceRecord(kind: .request, key: "user-code", now: clock.date) == [1])
        }
    }

    /// Of fifty concurrent records under one key exactly one is kept, and it is the one that was not refused.
    @Test(arguments: StoreKind.allCases)
    func fiftyConcurrentDeviceRecordsUnderOneKeyOneIsKept(kind: StoreKind) async throws {
        let clock = TestClock.startingNow()
        try await withDeviceStore(kind, clock: clock) { store throws in
            let kept = try await withThrowingTaskGroup(of: UInt8?.self) { group in
                for index in 0..<50 {
                    group.addTask {
                        do throws(StoreError) {
                            try await store.putDeviceRecord(
                                kind: .request, key: "race", payload: [UInt8(index)], expiresAt: clock.date + 60)
                            return UInt8(index)
                        } catch {
                            guard error.kind == .conflict else { throw error }
                            return nil
                        }
                    }
                }
                var kept: [UInt8] = []
                for try await index in group { if let index { kept.append(index) } }
                return kept
            }
            #expect(kept.count == 1)
            #expect(try await store.deviceRecord(kind: .request, key: "race", now: clock.date) == kept)
        }
    }

    /// Deleting removes that kind's record only; deleting what is not there is no error.
    @Test(arguments: StoreKind.allCases)
    func deletingADeviceRecordRemovesOnlyIt(kind: StoreKind) async throws {
        let clock = TestClock.startingNow()
        try await withDeviceStore(kind, clock: clock) { store throws in
            try await store.putDeviceRecord(kind: .grant, key: "k", payload: [1], expiresAt: clock.date + 60)
            try await store.putDeviceRecord(kind: .decision, key: "k", payload: [2], expiresAt: clock.date + 60)
            try await store.deleteDeviceRecord(kind: .grant, key: "k")
            #expect(try await store.deviceRecord(kind: .grant, key: "k", now: clock.date) == nil)
            #expect(try await store.deviceRecord(kind: .decision, key: "k", now: clock.date) == [2])
            try await store.deleteDeviceRecord(kind: .grant, key: "k")
            try await store.deleteDeviceRecord(kind: .request, key: "never-put")
            // Gone for good: the key may hold a new record.
            try await store.putDeviceRecord(kind: .grant, key: "k", payload: [3], expiresAt: clock.date + 60)
            #expect(try await store.deviceRecord(kind: .grant, key: "k", now: clock.date) == [3])
        }
    }

    /// A record holds until exactly `expiresAt`; after that it reads as nil and its key may hold a new one.
    // Moves the test clock: Redis expires by its own.
    @Test(arguments: StoreKind.followingTestClock)
    func anExpiredDeviceRecordIsGoneAndItsKeyFree(kind: StoreKind) async throws {
        let clock = TestClock.startingNow()
        let start = clock.date
        try await withDeviceStore(kind, clock: clock) { store throws in
            try await store.putDeviceRecord(kind: .grant, key: "k", payload: [1], expiresAt: start + 10)
            #expect(try await store.deviceRecord(kind: .grant, key: "k", now: start + 9.5) == [1])
            #expect(try await store.deviceRecord(kind: .grant, key: "k", now: start + 10) == nil)
            clock.advance(by: 9.5)
            await #expect(throws: StoreError.self) {
                try await store.putDeviceRecord(kind: .grant, key: "k", payload: [2], expiresAt: start + 100)
            }
            clock.advance(by: 0.5)
            try await store.putDeviceRecord(kind: .grant, key: "k", payload: [2], expiresAt: start + 100)
            #expect(try await store.deviceRecord(kind: .grant, key: "k", now: clock.date) == [2])
        }
    }

    // MARK: Decisions (DeviceStore)

    /// A key is decided once; `isDecided` reads the decision without making it, and decisions are apart from used
    /// states and from device records.
    @Test(arguments: StoreKind.allCases)
    func aKeyIsDecidedOnceAndReadWithoutDeciding(kind: StoreKind) async throws {
        let clock = TestClock.startingNow()
        try await withStore(kind, clock: clock) { store throws in
            #expect(try await !store.isDecided(key: "used", now: clock.date))
            #expect(try await !store.isDecided(key: "used", now: clock.date))
            #expect(try await store.decideOnce(key: "used", expiresAt: clock.date + 60))
            #expect(try await store.isDecided(key: "used", now: clock.date))
            #expect(try await !store.decideOnce(key: "used", expiresAt: clock.date + 600))
            #expect(try await !store.isDecided(key: "other", now: clock.date))
            #expect(try await store.decideOnce(key: "other", expiresAt: clock.date + 60))
            // Namespaces of their own: a used state or a record under the same key is another thing.
            #expect(try await store.recordUsedState(key: "used", expiresAt: clock.date + 60))
            #expect(try await store.deviceRecord(kind: .decision, key: "used", now: clock.date) == nil)
            #expect(try await store.decideOnce(key: "fresh", expiresAt: clock.date + 60))
            #expect(try await store.recordUsedState(key: "fresh", expiresAt: clock.date + 60))
        }
    }

    /// Of fifty concurrent decisions of one key exactly one is told it decided.
    @Test(arguments: StoreKind.allCases)
    func fiftyConcurrentDecisionsOneWins(kind: StoreKind) async throws {
        let clock = TestClock.startingNow()
        try await withDeviceStore(kind, clock: clock) { store throws in
            let wins = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<50 {
                    group.addTask { try await store.decideOnce(key: "race", expiresAt: clock.date + 60) }
                }
                var wins = 0
                for try await won in group where won { wins += 1 }
                return wins
            }
            #expect(wins == 1)
        }
    }

    /// A decision holds until exactly `expiresAt` on the store's clock, then it may be made again.
    // Moves the test clock: Redis expires by its own.
    @Test(arguments: StoreKind.followingTestClock)
    func aDecisionExpires(kind: StoreKind) async throws {
        let clock = TestClock.startingNow()
        let start = clock.date
        try await withDeviceStore(kind, clock: clock) { store throws in
            #expect(try await store.decideOnce(key: "k", expiresAt: start + 10))
            #expect(try await store.isDecided(key: "k", now: start + 9.5))
            #expect(try await !store.isDecided(key: "k", now: start + 10))
            clock.advance(by: 9.5)
            #expect(try await !store.decideOnce(key: "k", expiresAt: start + 100))
            clock.advance(by: 0.5)
            #expect(try await store.decideOnce(key: "k", expiresAt: start + 100))
            #expect(try await store.isDecided(key: "k", now: clock.date))
        }
    }

    /// Sweep removes expired device records and decisions, counts them, and keeps the rest.
    // Moves the test clock: Redis expires by its own.
    @Test(arguments: StoreKind.followingTestClock)
    func sweepRemovesExpiredDeviceRecordsAndDecisions(kind: StoreKind) async throws {
        let clock = TestClock.startingNow()
        let now = clock.date
        try await withStore(kind, clock: clock) { store throws in
            try await store.putDeviceRecord(kind: .grant, key: "short", payload: [1], expiresAt: now + 10)
            try await store.putDeviceRecord(kind: .request, key: "long", payload: [2], expiresAt: now + 100)
            #expect(try await store.decideOnce(key: "short", expiresAt: now + 10))
            #expect(try await store.decideOnce(key: "long", expiresAt: now + 100))
            #expect(try await store.sweep(now: now + 9) == 0)
            #expect(try await store.sweep(now: now + 10) == 2)
            #expect(try await store.deviceRecord(kind: .request, key: "long", now: now) == [2])
            #expect(try await store.isDecided(key: "long", now: now))
            // At the store's clock (still `now`), the swept ones are gone: their keys are free again.
            #expect(try await store.decideOnce(key: "short", expiresAt: now + 10))
            try await store.putDeviceRecord(kind: .grant, key: "short", payload: [3], expiresAt: now + 10)
        }
    }
}

/// Runs `body` with a new, empty store of `kind`, seen only as a `DeviceStore`: the device cases hold any store of
/// that protocol (a later PostgreSQL one included) to the same semantics.
private func withDeviceStore<T>(
    _ kind: StoreKind, clock: TestClock, _ body: (any DeviceStore) async throws -> T
) async throws -> T {
    try await withStore(kind, clock: clock) { store throws in try await body(store) }
}
