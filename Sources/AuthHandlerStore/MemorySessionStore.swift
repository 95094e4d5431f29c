import AuthHandlerSystem
import Foundation
import Synchronization

/// A `SessionStore` in process memory, for `--once` and tests: the SQLite store's semantics, lost on exit.
///
/// Keys are kept as SHA-256 digests here too, so a heap dump holds nothing replayable. A `Mutex` makes every
/// operation atomic; each is a dictionary lookup, so holding it on a cooperative thread is harmless.
package final class MemorySessionStore: SessionStore {
    private struct ResultEntry {
        var payload: [UInt8]
        var expiresAt: Date
        var claimed: Bool
    }

    private struct State {
        var usedStates: [[UInt8]: Date] = [:]
        var results: [[UInt8]: ResultEntry] = [:]
    }

    private let state = Mutex(State())
    private let now: WallClock

    /// Creates an empty store; `now` decides whether a recorded state has expired.
    package init(now: @escaping WallClock = systemWallClock) {
        self.now = now
    }

    package func recordUsedState(key: String, expiresAt: Date) async throws(StoreError) -> Bool {
        let keyHash = try StoreKeyDigest.of(key)
        let now = self.now()
        return state.withLock { state in
            if let recorded = state.usedStates[keyHash], recorded > now { return false }
            state.usedStates[keyHash] = expiresAt
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

    package func sweep(now: Date) async throws(StoreError) -> Int {
        state.withLock { state -> Int in
            let before = state.usedStates.count + state.results.count
            state.usedStates = state.usedStates.filter { $0.value > now }
            state.results = state.results.filter { $0.value.expiresAt > now }
            return before - state.usedStates.count - state.results.count
        }
    }

    package func healthProblem() async -> String? { nil }
}
