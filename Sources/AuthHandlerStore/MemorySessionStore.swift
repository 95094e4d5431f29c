import AuthHandlerSystem
import Foundation
import Synchronization

/// A `SessionStore` and `DeviceStore` in process memory, for `--once` and tests: the SQLite store's semantics, lost on exit.
///
/// Keys are kept as SHA-256 digests here too, so a heap dump holds nothing replayable. A `Mutex` makes every
/// operation atomic; each is a dictionary lookup, so holding it on a cooperative thread is harmless.
package final class MemorySessionStore: SessionStore, DeviceStore {
    private struct ResultEntry {
        var payload: [UInt8]
        var expiresAt: Date
        var claimed: Bool
    }

    private struct CounterEntry {
        var count: Int
        var expiresAt: Date
    }

    private struct DeviceEntry {
        var payload: [UInt8]
        var expiresAt: Date
    }

    private struct State {
        var usedStates: [[UInt8]: Date] = [:]
        var results: [[UInt8]: ResultEntry] = [:]
        var counters: [[UInt8]: CounterEntry] = [:]
        var deviceRecords: [DeviceRecordKind: [[UInt8]: DeviceEntry]] = [:]
        var deviceDecisions: [[UInt8]: Date] = [:]

        var count: Int {
            usedStates.count + results.count + counters.count + deviceDecisions.count
                + deviceRecords.values.reduce(0) { $0 + $1.count }
        }
    }

    private let state = Mutex(State())
    private let now: WallClock

    /// Creates an empty store; `now` decides whether a recorded state has expired.
    package init(now: @escaping WallClock = systemWallClock) {
        self.now = now
    }

    package func recordUsedState(key: String, expiresAt: Date) async throws(StoreError) -> Bool {
        try recordOnce(key: key, expiresAt: expiresAt, in: \.usedStates)
    }

    /// Records `key` in `table` until `expiresAt` unless it is recorded there and not yet expired; says whether it did.
    private func recordOnce(
        key: String, expiresAt: Date, in table: WritableKeyPath<State, [[UInt8]: Date]>
    ) throws(StoreError) -> Bool {
        let keyHash = try StoreKeyDigest.of(key)
        let now = self.now()
        return state.withLock { state in
            if let recorded = state[keyPath: table][keyHash], recorded > now { return false }
            state[keyPath: table][keyHash] = expiresAt
            return true
        }
    }

    package func insertResult(code: String, payload: [UInt8], expiresAt: Date) async throws(StoreError) {
        let codeHash = try StoreKeyDigest.of(code)
        try state.withLock { state throws(StoreError) in
            guard state.results[codeHash] == nil else {
                throw StoreError(.unavailable, detail: "insert result: a result with this code exists")
            }
            state.results[codeHash] = ResultEntry(payload: payload, expiresAt: expiresAt, claimed: false)
        }
    }

    package func peekResult(code: String, now: Date) async throws(StoreError) -> ResultLookup {
        let codeHash = try StoreKeyDigest.of(code)
        return state.withLock { state in
            guard let result = state.results[codeHash], result.expiresAt > now else { return .absent }
            return result.claimed ? .claimed : .available(result.payload)
        }
    }

    package func claimResult(code: String, now: Date) async throws(StoreError) -> ResultLookup {
        let codeHash = try StoreKeyDigest.of(code)
        return state.withLock { state in
            guard var result = state.results[codeHash], result.expiresAt > now else { return .absent }
            guard !result.claimed else { return .claimed }
            result.claimed = true
            state.results[codeHash] = result
            return .available(result.payload)
        }
    }

    package func releaseResult(code: String) async throws(StoreError) {
        let codeHash = try StoreKeyDigest.of(code)
        state.withLock { $0.results[codeHash]?.claimed = false }
    }

    package func deleteResult(code: String) async throws(StoreError) {
        let codeHash = try StoreKeyDigest.of(code)
        state.withLock { _ = $0.results.removeValue(forKey: codeHash) }
    }

    package func incrementCounter(key: String, window: Duration) async throws(StoreError) -> CounterReading {
        let keyHash = try StoreKeyDigest.of(key)
        let now = self.now()
        return state.withLock { state in
            var counter =
                state.counters[keyHash].flatMap { $0.expiresAt > now ? $0 : nil }
                ?? CounterEntry(count: 0, expiresAt: now.addingTimeInterval(window.timeInterval))
            counter.count += 1
            state.counters[keyHash] = counter
            return CounterReading(count: counter.count, remaining: .seconds(counter.expiresAt.timeIntervalSince(now)))
        }
    }

    package func decrementCounter(key: String) async throws(StoreError) {
        let keyHash = try StoreKeyDigest.of(key)
        let now = self.now()
        state.withLock { state in
            guard let counter = state.counters[keyHash], counter.expiresAt > now else { return }
            if counter.count > 1 {
                state.counters[keyHash]?.count -= 1
            } else {
                state.counters.removeValue(forKey: keyHash)
            }
        }
    }

    package func putDeviceRecord(
        kind: DeviceRecordKind, key: String, payload: [UInt8], expiresAt: Date
    ) async throws(StoreError) {
        let keyHash = try StoreKeyDigest.of(key)
        let now = self.now()
        try state.withLock { state throws(StoreError) in
            if let kept = state.deviceRecords[kind]?[keyHash], kept.expiresAt > now {
                throw StoreError(.conflict, detail: "put device record: a \(kind.rawValue) record with this key exists")
            }
            state.deviceRecords[kind, default: [:]][keyHash] = DeviceEntry(payload: payload, expiresAt: expiresAt)
        }
    }

    package func deviceRecord(kind: DeviceRecordKind, key: String, now: Date) async throws(StoreError) -> [UInt8]? {
        let keyHash = try StoreKeyDigest.of(key)
        return state.withLock { state in
            guard let record = state.deviceRecords[kind]?[keyHash], record.expiresAt > now else { return nil }
            return record.payload
        }
    }

    package func deleteDeviceRecord(kind: DeviceRecordKind, key: String) async throws(StoreError) {
        let keyHash = try StoreKeyDigest.of(key)
        state.withLock { _ = $0.deviceRecords[kind]?.removeValue(forKey: keyHash) }
    }

    package func decideOnce(key: String, expiresAt: Date) async throws(StoreError) -> Bool {
        try recordOnce(key: key, expiresAt: expiresAt, in: \.deviceDecisions)
    }

    package func isDecided(key: String, now: Date) async throws(StoreError) -> Bool {
        let keyHash = try StoreKeyDigest.of(key)
        return state.withLock { state in state.deviceDecisions[keyHash].map { $0 > now } ?? false }
    }

    package func sweep(now: Date) async throws(StoreError) -> Int {
        state.withLock { state -> Int in
            let before = state.count
            state.usedStates = state.usedStates.filter { $0.value > now }
            state.results = state.results.filter { $0.value.expiresAt > now }
            state.counters = state.counters.filter { $0.value.expiresAt > now }
            state.deviceDecisions = state.deviceDecisions.filter { $0.value > now }
            state.deviceRecords = state.deviceRecords.mapValues { $0.filter { $0.value.expiresAt > now } }
            return before - state.count
        }
    }

    package func healthProblem() async -> String? { nil }
}
