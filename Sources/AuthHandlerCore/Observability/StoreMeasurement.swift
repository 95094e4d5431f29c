import AuthHandlerStore
import AuthHandlerSystem

/// Measures one store operation: times it on a monotonic clock and counts the `StoreError`s it throws, into
/// ``Metrics`` (`auth_handler_store_operation_seconds`, `auth_handler_store_errors_total`, labelled by the store kind
/// and the operation). The one place a store call is measured: ``MeasuredSessionStore`` forwards each call of every
/// store protocol through it, and a store of its own (an accounts store, say) measures its calls with it too, with
/// no measuring code of its own (docs/ARCHITECTURE.md, `Observability`).
///
/// The value or the error passes through unchanged; a failed call is timed as well as counted.
package struct StoreMeasurement<C: Clock>: Sendable where C.Duration == Duration {
    /// The `store` label: the store kind (`sqlite`, `redis`, `memory`).
    package let store: String
    private let metrics: Metrics
    private let clock: C

    /// Measures under the `store` label, reading `clock`.
    package init(store: String, metrics: Metrics, clock: C) {
        self.store = store
        self.metrics = metrics
        self.clock = clock
    }

    /// Starts the error counters of `operations` at zero, so that a rate over them exists before the first failure.
    package func declare(operations: [String]) {
        metrics.storeDeclared(store: store, operations: operations)
    }

    /// Runs `call`, timing it under `operation` and counting a thrown `StoreError` under it.
    package func measure<T>(
        operation: String, _ call: () async throws(StoreError) -> T
    ) async throws(StoreError) -> T {
        let began = clock.now
        do {
            let value = try await call()
            record(operation, since: began)
            return value
        } catch {
            record(operation, since: began)
            metrics.storeFailed(store: store, operation: operation)
            throw error
        }
    }

    /// Runs `call`, which cannot fail (a health probe: an unhealthy answer is not an error), timing it under `operation`.
    package func measure<T>(operation: String, _ call: () async -> T) async -> T {
        let began = clock.now
        let value = await call()
        record(operation, since: began)
        return value
    }

    private func record(_ operation: String, since began: C.Instant) {
        metrics.observeStore(store: store, operation: operation, seconds: began.duration(to: clock.now).timeInterval)
    }
}

extension StoreMeasurement where C == ContinuousClock {
    /// Measures on the continuous clock (monotonic: wall-clock steps do not move it).
    package init(store: String, metrics: Metrics) {
        self.init(store: store, metrics: metrics, clock: ContinuousClock())
    }
}
