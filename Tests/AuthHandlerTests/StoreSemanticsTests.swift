import Foundation
import Testing

@testable import AuthHandler

/// The one-time semantics every `SessionStore` must give the flow, run against each implementation.
struct StoreSemanticsTests {
    @Test(arguments: StoreKind.allCases)
    func pendingIsConsumedOnce(kind: StoreKind) async throws {
        let clock = StoreTestClock()
        try await withStore(kind, clock: clock) { store in
            try await store.insertPending(key: "state-1", payload: storeBytes("session"), expiresAt: clock.now + 60)
            #expect(try await store.consumePending(key: "state-1", now: clock.now) == storeBytes("session"))
            #expect(try await store.consumePending(key: "state-1", now: clock.now) == nil)
            #expect(try await store.consumePending(key: "never-inserted", now: clock.now) == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func emptyPayloadRoundTrips(kind: StoreKind) async throws {
        let clock = StoreTestClock()
        try await withStore(kind, clock: clock) { store in
            try await store.insertPending(key: "state-1", payload: [], expiresAt: clock.now + 60)
            #expect(try await store.consumePending(key: "state-1", now: clock.now) == [])
            try await store.insertResult(code: "code-1", payload: [], expiresAt: clock.now + 60)
            #expect(try await store.claimResult(code: "code-1", now: clock.now, lease: 30) == [])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func binaryPayloadRoundTrips(kind: StoreKind) async throws {
        let clock = StoreTestClock()
        let payload = (0...255).map { UInt8($0) } + [0, 0, 0]
        try await withStore(kind, clock: clock) { store in
            try await store.insertPending(key: "state-1", payload: payload, expiresAt: clock.now + 60)
            #expect(try await store.consumePending(key: "state-1", now: clock.now) == payload)
        }
    }

    /// Expired at exactly `expiresAt`; the expired row is removed, so it is gone even for an earlier clock.
    @Test(arguments: StoreKind.allCases)
    func expiredPendingIsNilAndRemoved(kind: StoreKind) async throws {
        let clock = StoreTestClock()
        let start = clock.now
        try await withStore(kind, clock: clock) { store in
            try await store.insertPending(key: "state-1", payload: storeBytes("session"), expiresAt: start + 10)
            #expect(try await store.pendingCount(now: start) == 1)
            #expect(try await store.consumePending(key: "state-1", now: start + 10) == nil)
            #expect(try await store.consumePending(key: "state-1", now: start) == nil)
            #expect(try await store.pendingCount(now: start) == 0)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func duplicateKeyIsRefused(kind: StoreKind) async throws {
        let clock = StoreTestClock()
        try await withStore(kind, clock: clock) { store in
            try await store.insertPending(key: "state-1", payload: storeBytes("first"), expiresAt: clock.now + 60)
            let pendingError = await #expect(throws: StoreError.self) {
                try await store.insertPending(key: "state-1", payload: storeBytes("second"), expiresAt: clock.now + 60)
            }
            #expect(pendingError?.kind == .unavailable)
            #expect(try await store.consumePending(key: "state-1", now: clock.now) == storeBytes("first"))

            try await store.insertResult(code: "code-1", payload: storeBytes("first"), expiresAt: clock.now + 60)
            let resultError = await #expect(throws: StoreError.self) {
                try await store.insertResult(code: "code-1", payload: storeBytes("second"), expiresAt: clock.now + 60)
            }
            #expect(resultError?.kind == .unavailable)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func fiftyConcurrentConsumersOneWins(kind: StoreKind) async throws {
        let clock = StoreTestClock()
        let now = clock.now
        try await withStore(kind, clock: clock) { store in
            try await store.insertPending(key: "state-race", payload: storeBytes("session"), expiresAt: now + 60)
            let winners = try await withThrowingTaskGroup(of: [UInt8]?.self) { group in
                for _ in 0..<50 {
                    group.addTask { try await store.consumePending(key: "state-race", now: now) }
                }
                var winners: [[UInt8]] = []
                for try await payload in group {
                    if let payload { winners.append(payload) }
                }
                return winners
            }
            #expect(winners == [storeBytes("session")])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func fiftyConcurrentClaimsOneWins(kind: StoreKind) async throws {
        let clock = StoreTestClock()
        let now = clock.now
        try await withStore(kind, clock: clock) { store in
            try await store.insertResult(code: "code-race", payload: storeBytes("result"), expiresAt: now + 60)
            let winners = try await withThrowingTaskGroup(of: [UInt8]?.self) { group in
                for _ in 0..<50 {
                    group.addTask { try await store.claimResult(code: "code-race", now: now, lease: 30) }
                }
                var winners = 0
                for try await payload in group where payload != nil { winners += 1 }
                return winners
            }
            #expect(winners == 1)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func claimHidesReleaseRestores(kind: StoreKind) async throws {
        let clock = StoreTestClock()
        let now = clock.now
        try await withStore(kind, clock: clock) { store in
            try await store.insertResult(code: "code-1", payload: storeBytes("result"), expiresAt: now + 120)
            #expect(try await store.claimResult(code: "code-1", now: now, lease: 30) == storeBytes("result"))
            #expect(try await store.claimResult(code: "code-1", now: now + 1, lease: 30) == nil)
            try await store.releaseResult(code: "code-1")
            #expect(try await store.claimResult(code: "code-1", now: now + 2, lease: 30) == storeBytes("result"))
            #expect(try await store.claimResult(code: "code-unknown", now: now, lease: 30) == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func leaseExpiryMakesClaimableAgain(kind: StoreKind) async throws {
        let clock = StoreTestClock()
        let now = clock.now
        try await withStore(kind, clock: clock) { store in
            try await store.insertResult(code: "code-1", payload: storeBytes("result"), expiresAt: now + 120)
            #expect(try await store.claimResult(code: "code-1", now: now, lease: 30) != nil)
            #expect(try await store.claimResult(code: "code-1", now: now + 29.9, lease: 30) == nil)
            #expect(try await store.claimResult(code: "code-1", now: now + 30, lease: 30) == storeBytes("result"))
            #expect(try await store.claimResult(code: "code-1", now: now + 59, lease: 30) == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func deleteMakesResultGone(kind: StoreKind) async throws {
        let clock = StoreTestClock()
        let now = clock.now
        try await withStore(kind, clock: clock) { store in
            try await store.insertResult(code: "code-1", payload: storeBytes("result"), expiresAt: now + 120)
            #expect(try await store.claimResult(code: "code-1", now: now, lease: 30) != nil)
            try await store.deleteResult(code: "code-1")
            try await store.releaseResult(code: "code-1")
            #expect(try await store.claimResult(code: "code-1", now: now + 60, lease: 30) == nil)
            try await store.deleteResult(code: "code-never-inserted")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func expiredResultIsNotClaimable(kind: StoreKind) async throws {
        let clock = StoreTestClock()
        let now = clock.now
        try await withStore(kind, clock: clock) { store in
            try await store.insertResult(code: "code-1", payload: storeBytes("result"), expiresAt: now + 60)
            #expect(try await store.claimResult(code: "code-1", now: now + 60, lease: 30) == nil)
            #expect(try await store.claimResult(code: "code-1", now: now + 59, lease: 30) == storeBytes("result"))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func sweepRemovesOnlyExpiredRowsAndCountsThem(kind: StoreKind) async throws {
        let clock = StoreTestClock()
        let now = clock.now
        try await withStore(kind, clock: clock) { store in
            try await store.insertPending(key: "old-1", payload: storeBytes("a"), expiresAt: now + 10)
            try await store.insertPending(key: "old-2", payload: storeBytes("b"), expiresAt: now + 20)
            try await store.insertPending(key: "live", payload: storeBytes("c"), expiresAt: now + 100)
            try await store.insertResult(code: "old-code", payload: storeBytes("d"), expiresAt: now + 20)
            try await store.insertResult(code: "claimed-old-code", payload: storeBytes("e"), expiresAt: now + 20)
            try await store.insertResult(code: "live-code", payload: storeBytes("f"), expiresAt: now + 100)
            #expect(try await store.claimResult(code: "claimed-old-code", now: now, lease: 300) != nil)

            #expect(try await store.sweep(now: now) == 0)
            #expect(try await store.sweep(now: now + 20) == 4)
            #expect(try await store.sweep(now: now + 20) == 0)
            #expect(try await store.pendingCount(now: now) == 1)
            #expect(try await store.consumePending(key: "old-1", now: now) == nil)
            #expect(try await store.consumePending(key: "live", now: now + 50) == storeBytes("c"))
            #expect(try await store.claimResult(code: "live-code", now: now + 50, lease: 30) == storeBytes("f"))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func pendingCountCountsUnexpiredOnly(kind: StoreKind) async throws {
        let clock = StoreTestClock()
        let now = clock.now
        try await withStore(kind, clock: clock) { store in
            #expect(try await store.pendingCount(now: now) == 0)
            for index in 1...5 {
                try await store.insertPending(
                    key: "state-\(index)", payload: storeBytes("p"), expiresAt: now + Double(index * 10))
            }
            try await store.insertResult(code: "code", payload: storeBytes("r"), expiresAt: now + 100)
            #expect(try await store.pendingCount(now: now) == 5)
            #expect(try await store.pendingCount(now: now + 25) == 3)
            _ = try await store.consumePending(key: "state-5", now: now)
            #expect(try await store.pendingCount(now: now) == 4)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func capacityBoundRefusesThenRecovers(kind: StoreKind) async throws {
        let clock = StoreTestClock()
        try await withStore(kind, clock: clock, maxPending: 3) { store in
            for index in 1...3 {
                try await store.insertPending(
                    key: "state-\(index)", payload: storeBytes("p"), expiresAt: clock.now + 60)
            }
            let error = await #expect(throws: StoreError.self) {
                try await store.insertPending(key: "state-4", payload: storeBytes("p"), expiresAt: clock.now + 60)
            }
            #expect(error?.kind == .capacityReached)
            #expect(try await store.consumePending(key: "state-4", now: clock.now) == nil)

            // Consuming one makes room for exactly one.
            #expect(try await store.consumePending(key: "state-1", now: clock.now) != nil)
            try await store.insertPending(key: "state-4", payload: storeBytes("p"), expiresAt: clock.now + 60)
            await #expect(throws: StoreError(.capacityReached, detail: "3 unexpired pending sign-ins, the limit is 3"))
            {
                try await store.insertPending(key: "state-5", payload: storeBytes("p"), expiresAt: clock.now + 60)
            }

            // Once they expire they stop counting, and sweep removes them.
            clock.advance(by: 60)
            #expect(try await store.sweep(now: clock.now) == 3)
            for index in 5...7 {
                try await store.insertPending(
                    key: "state-\(index)", payload: storeBytes("p"), expiresAt: clock.now + 60)
            }
            #expect(try await store.pendingCount(now: clock.now) == 3)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func resultsDoNotCountTowardPendingCapacity(kind: StoreKind) async throws {
        let clock = StoreTestClock()
        try await withStore(kind, clock: clock, maxPending: 1) { store in
            try await store.insertResult(code: "code-1", payload: storeBytes("r"), expiresAt: clock.now + 60)
            try await store.insertResult(code: "code-2", payload: storeBytes("r"), expiresAt: clock.now + 60)
            try await store.insertPending(key: "state-1", payload: storeBytes("p"), expiresAt: clock.now + 60)
            #expect(try await store.pendingCount(now: clock.now) == 1)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func freshStoreIsHealthy(kind: StoreKind) async throws {
        try await withStore(kind) { store in
            #expect(await store.isHealthy())
        }
    }
}
