import Foundation
import Synchronization

/// A `SessionStore` in process memory, for `--once` and tests: the SQLite store's semantics, lost on exit.
///
/// Keys are kept as SHA-256 digests here too, so a heap dump holds nothing replayable. A `Mutex` makes every
/// operation atomic; each is a dictionary lookup, so holding it on a cooperative thread is harmless.
public final class MemorySessionStore: SessionStore {
    private struct PendingEntry {
        var payload: [UInt8]
        var expiresAt: Date
    }

    private struct ResultEntry {
        var payload: [UInt8]
        var expiresAt: Date
        var claimedUntil: Date?
    }

    private struct State {
        var pending: [[UInt8]: PendingEntry] = [:]
        var results: [[UInt8]: ResultEntry] = [:]
    }

    private let state = Mutex(State())
    private let maxPending: Int
    private let currentDate: @Sendable () -> Date

    /// Creates an empty store bounded to `maxPending` unexpired pending sign-ins, counted at `currentDate()`.
    public init(
        maxPending: Int = SQLiteSessionStore.defaultMaxPending,
        currentDate: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.maxPending = maxPending
        self.currentDate = currentDate
    }

    public func insertPending(key: String, payload: [UInt8], expiresAt: Date) async throws(StoreError) {
        let keyHash = try StoreKeyDigest.of(key)
        let now = currentDate()
        let maxPending = maxPending
        try state.withLock { state throws(StoreError) in
            let live = state.pending.values.count { $0.expiresAt > now }
            guard live < maxPending else {
                throw StoreError(
                    .capacityReached, detail: "\(live) unexpired pending sign-ins, the limit is \(maxPending)")
            }
            guard state.pending[keyHash] == nil else {
                throw StoreError(.unavailable, detail: "insert pending: a pending sign-in with this key exists")
            }
            state.pending[keyHash] = PendingEntry(payload: payload, expiresAt: expiresAt)
        }
    }

    public func consumePending(key: String, now: Date) async throws(StoreError) -> [UInt8]? {
        let keyHash = try StoreKeyDigest.of(key)
        let entry = state.withLock { $0.pending.removeValue(forKey: keyHash) }
        guard let entry, entry.expiresAt > now else { return nil }
        return entry.payload
    }

    public func insertResult(code: String, payload: [UInt8], expiresAt: Date) async throws(StoreError) {
        let codeHash = try StoreKeyDigest.of(code)
        try state.withLock { state throws(StoreError) in
            guard state.results[codeHash] == nil else {
                throw StoreError(.unavailable, detail: "insert result: a result with this code exists")
            }
            state.results[codeHash] = ResultEntry(payload: payload, expiresAt: expiresAt, claimedUntil: nil)
        }
    }

    public func claimResult(code: String, now: Date, lease: TimeInterval) async throws(StoreError) -> [UInt8]? {
        let codeHash = try StoreKeyDigest.of(code)
        return state.withLock { state -> [UInt8]? in
            guard var result = state.results[codeHash], result.expiresAt > now else { return nil }
            if let claimedUntil = result.claimedUntil, claimedUntil > now { return nil }
            result.claimedUntil = now.addingTimeInterval(lease)
            state.results[codeHash] = result
            return result.payload
        }
    }

    public func releaseResult(code: String) async throws(StoreError) {
        let codeHash = try StoreKeyDigest.of(code)
        state.withLock { $0.results[codeHash]?.claimedUntil = nil }
    }

    public func deleteResult(code: String) async throws(StoreError) {
        let codeHash = try StoreKeyDigest.of(code)
        state.withLock { _ = $0.results.removeValue(forKey: codeHash) }
    }

    public func sweep(now: Date) async throws(StoreError) -> Int {
        state.withLock { state -> Int in
            let before = state.pending.count + state.results.count
            state.pending = state.pending.filter { $0.value.expiresAt > now }
            state.results = state.results.filter { $0.value.expiresAt > now }
            return before - state.pending.count - state.results.count
        }
    }

    public func pendingCount(now: Date) async throws(StoreError) -> Int {
        state.withLock { state in state.pending.values.count { $0.expiresAt > now } }
    }

    public func isHealthy() async -> Bool { true }
}
