import AuthHandlerStore
import AuthHandlerSystem
import Foundation

/// A `SessionStore` and `CounterStore` that times every call to another store on a monotonic clock and counts the calls that throw,
/// into ``Metrics`` (`auth_handler_store_operation_seconds`, `auth_handler_store_errors_total`).
///
/// It lives in `Observability` so that `Store` knows no metrics: `serve` wraps whatever store the config describes. The
/// semantics are the wrapped store's, unchanged; errors pass through as they were thrown.
package struct MeasuredSessionStore<C: Clock>: SessionStore, CounterStore where C.Duration == Duration {
    /// The `operation` label: one value per `SessionStore` and `CounterStore` requirement.
    package enum Operation: String, Sendable, CaseIterable {
        case recordUsedState = "record_used_state"
        case insertResult = "insert_result"
        case peekResult = "peek_result"
        case claimResult = "claim_result"
        case releaseResult = "release_result"
        case deleteResult = "delete_result"
        case sweep
        case isHealthy = "is_healthy"
        case incrementCounter = "increment_counter"
        case decrementCounter = "decrement_counter"
    }

    /// The wrapped store.
    package let base: any SessionStore & CounterStore
    private let store: String
    private let metrics: Metrics
    private let clock: C

    /// Measures `base` under the `store` label (the store kind: `sqlite`, `redis`, `memory`), reading `clock`.
    package init(_ base: any SessionStore & CounterStore, store: String, metrics: Metrics, clock: C) {
        self.base = base
        self.store = store
        self.metrics = metrics
        self.clock = clock
        metrics.storeDeclared(
            store: store, operations: Operation.allCases.filter { $0 != .isHealthy }.map(\.rawValue))
    }

    package func recordUsedState(key: String, expiresAt: Date) async throws(StoreError) -> Bool {
        try await measure(.recordUsedState) { () async throws(StoreError) in
            try await base.recordUsedState(key: key, expiresAt: expiresAt)
        }
    }

    package func insertResult(code: String, payload: [UInt8], expiresAt: Date) async throws(StoreError) {
        try await measure(.insertResult) { () async throws(StoreError) in
            try await base.insertResult(code: code, payload: payload, expiresAt: expiresAt)
        }
    }

    package func peekResult(code: String, now: Date) async throws(StoreError) -> ResultLookup {
        try await measure(.peekResult) { () async throws(StoreError) in try await base.peekResult(code: code, now: now)
        }
    }

    package func claimResult(code: String, now: Date) async throws(StoreError) -> ResultLookup {
        try await measure(.claimResult) { () async throws(StoreError) in
            try await base.claimResult(code: code, now: now)
        }
    }

    package func releaseResult(code: String) async throws(StoreError) {
        try await measure(.releaseResult) { () async throws(StoreError) in try await base.releaseResult(code: code) }
    }

    package func deleteResult(code: String) async throws(StoreError) {
        try await measure(.deleteResult) { () async throws(StoreError) in try await base.deleteResult(code: code) }
    }

    package func sweep(now: Date) async throws(StoreError) -> Int {
        try await measure(.sweep) { () async throws(StoreError) in try await base.sweep(now: now) }
    }

    package func incrementCounter(key: String, window: Duration) async throws(StoreError) -> CounterReading {
        try await measure(.incrementCounter) { () async throws(StoreError) in
            try await base.incrementCounter(key: key, window: window)
        }
    }

    package func decrementCounter(key: String) async throws(StoreError) {
        try await measure(.decrementCounter) { () async throws(StoreError) in
            try await base.decrementCounter(key: key)
        }
    }

    /// Timed too (a Redis store's probe is a round trip); an unhealthy answer is not an error.
    package func healthProblem() async -> String? {
        let began = clock.now
        let problem = await base.healthProblem()
        record(.isHealthy, since: began)
        return problem
    }

    private func measure<T>(
        _ operation: Operation, _ call: () async throws(StoreError) -> T
    ) async throws(StoreError) -> T {
        let began = clock.now
        do {
            let value = try await call()
            record(operation, since: began)
            return value
        } catch {
            record(operation, since: began)
            metrics.storeFailed(store: store, operation: operation.rawValue)
            throw error
        }
    }

    private func record(_ operation: Operation, since began: C.Instant) {
        metrics.observeStore(
            store: store, operation: operation.rawValue, seconds: began.duration(to: clock.now).timeInterval)
    }
}

extension MeasuredSessionStore where C == ContinuousClock {
    /// Measures `base` on the continuous clock (monotonic: wall-clock steps do not move it).
    package init(_ base: any SessionStore & CounterStore, store: String, metrics: Metrics) {
        self.init(base, store: store, metrics: metrics, clock: ContinuousClock())
    }
}
