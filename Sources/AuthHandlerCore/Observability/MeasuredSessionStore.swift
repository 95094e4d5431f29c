import AuthHandlerStore
import AuthHandlerSystem
import Foundation

/// Another store, each call measured by one ``StoreMeasurement``: it is whatever store protocols its base is
/// (``SessionStore``, ``CounterStore``, ``DeviceStore``), each requirement one line that names its operation label and
/// forwards, so a store protocol added later is measured by one more conditional conformance here and no new wrapper.
///
/// It lives in `Observability` so that `Store` knows no metrics: `serve` wraps whatever store the config describes. The
/// semantics are the wrapped store's, unchanged; errors pass through as they were thrown.
package struct MeasuredSessionStore<Base: Sendable, C: Clock>: Sendable where C.Duration == Duration {
    /// The `operation` label: one value per requirement of a store protocol.
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
        case putDeviceRecord = "put_device_record"
        case deviceRecord = "device_record"
        case deleteDeviceRecord = "delete_device_record"
        case decideOnce = "decide_once"
        case isDecided = "is_decided"

        /// The operations of the protocols `base` conforms to, whose error counters start at zero (`is_healthy`
        /// never fails, so it has none).
        static func declared(for base: Any) -> [Operation] {
            var operations: [Operation] = []
            if base is any SessionStore {
                operations += [
                    .recordUsedState, .insertResult, .peekResult, .claimResult, .releaseResult, .deleteResult, .sweep,
                ]
            }
            if base is any CounterStore { operations += [.incrementCounter, .decrementCounter] }
            if base is any DeviceStore {
                operations += [.putDeviceRecord, .deviceRecord, .deleteDeviceRecord, .decideOnce, .isDecided]
            }
            return operations
        }
    }

    /// The wrapped store.
    package let base: Base
    private let measurement: StoreMeasurement<C>

    /// Measures `base` under the `store` label (the store kind: `sqlite`, `redis`, `memory`), reading `clock`.
    package init(_ base: Base, store: String, metrics: Metrics, clock: C) {
        self.base = base
        self.measurement = StoreMeasurement(store: store, metrics: metrics, clock: clock)
        measurement.declare(operations: Operation.declared(for: base).map(\.rawValue))
    }

    private func measure<T>(
        _ operation: Operation, _ call: () async throws(StoreError) -> T
    ) async throws(StoreError) -> T {
        try await measurement.measure(operation: operation.rawValue, call)
    }
}

extension MeasuredSessionStore where C == ContinuousClock {
    /// Measures `base` on the continuous clock (monotonic: wall-clock steps do not move it).
    package init(_ base: Base, store: String, metrics: Metrics) {
        self.init(base, store: store, metrics: metrics, clock: ContinuousClock())
    }
}

/// The configured store measured under `store`, as the flow takes it (`serve`'s store). Generic so that a store held
/// as `any SessionStore & DeviceStore` is opened and the measured store conforms to what it does.
package func measuredStore(
    _ base: some SessionStore & DeviceStore, store: String, metrics: Metrics
) -> any SessionStore & DeviceStore {
    MeasuredSessionStore(base, store: store, metrics: metrics)
}

extension MeasuredSessionStore: SessionStore where Base: SessionStore {
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

    /// Timed too (a Redis store's probe is a round trip); an unhealthy answer is not an error.
    package func healthProblem() async -> String? {
        await measurement.measure(operation: Operation.isHealthy.rawValue) { await base.healthProblem() }
    }
}

extension MeasuredSessionStore: CounterStore where Base: CounterStore {
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
}

extension MeasuredSessionStore: DeviceStore where Base: DeviceStore {
    package func putDeviceRecord(
        kind: DeviceRecordKind, key: String, payload: [UInt8], expiresAt: Date
    ) async throws(StoreError) {
        try await measure(.putDeviceRecord) { () async throws(StoreError) in
            try await base.putDeviceRecord(kind: kind, key: key, payload: payload, expiresAt: expiresAt)
        }
    }

    package func deviceRecord(kind: DeviceRecordKind, key: String, now: Date) async throws(StoreError) -> [UInt8]? {
        try await measure(.deviceRecord) { () async throws(StoreError) in
            try await base.deviceRecord(kind: kind, key: key, now: now)
        }
    }

    package func deleteDeviceRecord(kind: DeviceRecordKind, key: String) async throws(StoreError) {
        try await measure(.deleteDeviceRecord) { () async throws(StoreError) in
            try await base.deleteDeviceRecord(kind: kind, key: key)
        }
    }

    package func decideOnce(key: String, expiresAt: Date) async throws(StoreError) -> Bool {
        try await measure(.decideOnce) { () async throws(StoreError) in
            try await base.decideOnce(key: key, expiresAt: expiresAt)
        }
    }

    package func isDecided(key: String, now: Date) async throws(StoreError) -> Bool {
        try await measure(.isDecided) { () async throws(StoreError) in try await base.isDecided(key: key, now: now) }
    }
}
