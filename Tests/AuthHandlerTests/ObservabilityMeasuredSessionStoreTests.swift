import Foundation
import Synchronization
import TestSupport
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerStore

struct ObservabilityMeasuredSessionStoreTests {
    @Test func eachOperationsLatencyIsRecordedUnderItsOwnLabels() async throws {
        let clock = TestClock()
        let fake = SlowSessionStore(clock: clock)
        let metrics = Metrics()
        let store = MeasuredSessionStore(fake, store: "redis", metrics: metrics, clock: clock)

        fake.setLatency(.milliseconds(3))
        #expect(try await store.recordUsedState(key: "s", expiresAt: Date()))
        #expect(try await !store.recordUsedState(key: "s", expiresAt: Date()))
        fake.setLatency(.milliseconds(300))
        #expect(try await store.claimResult(code: "c", now: Date()) == .available([1]))
        fake.setLatency(.microseconds(50))
        #expect(await store.isHealthy())
        fake.setLatency(.milliseconds(1))
        #expect(try await store.incrementCounter(key: "a", window: .seconds(60)).count == 1)
        try await store.decrementCounter(key: "a")

        let text = metrics.render()
        let record = #"store="redis",operation="record_used_state""#
        #expect(text.contains("auth_handler_store_operation_seconds_bucket{\(record),le=\"0.0025\"} 0\n"))
        #expect(text.contains("auth_handler_store_operation_seconds_bucket{\(record),le=\"0.005\"} 2\n"))
        #expect(text.contains("auth_handler_store_operation_seconds_bucket{\(record),le=\"+Inf\"} 2\n"))
        #expect(text.contains("auth_handler_store_operation_seconds_sum{\(record)} 0.006\n"))
        #expect(text.contains("auth_handler_store_operation_seconds_count{\(record)} 2\n"))
        let claim = #"store="redis",operation="claim_result""#
        #expect(text.contains("auth_handler_store_operation_seconds_bucket{\(claim),le=\"0.25\"} 0\n"))
        #expect(text.contains("auth_handler_store_operation_seconds_bucket{\(claim),le=\"0.5\"} 1\n"))
        #expect(text.contains("auth_handler_store_operation_seconds_sum{\(claim)} 0.3\n"))
        let healthy = #"store="redis",operation="is_healthy""#
        #expect(text.contains("auth_handler_store_operation_seconds_bucket{\(healthy),le=\"0.0001\"} 1\n"))
        // Operations never called have no histogram, and none of these calls failed.
        #expect(!text.contains(#"auth_handler_store_operation_seconds_count{store="redis",operation="sweep"}"#))
        #expect(text.contains("auth_handler_store_errors_total{\(record)} 0\n"))
        for counter in ["increment_counter", "decrement_counter"] {
            let labels = "store=\"redis\",operation=\"\(counter)\""
            #expect(text.contains("auth_handler_store_operation_seconds_count{\(labels)} 1\n"))
            #expect(text.contains("auth_handler_store_errors_total{\(labels)} 0\n"))
        }
        #expect(text.contains("# TYPE auth_handler_store_operation_seconds histogram\n"))
        #expect(text.contains("# TYPE auth_handler_store_errors_total counter\n"))
    }

    @Test func aThrownStoreErrorIsCountedTimedAndPassedOn() async throws {
        let clock = TestClock()
        let fake = SlowSessionStore(clock: clock)
        let metrics = Metrics()
        let store = MeasuredSessionStore(fake, store: "sqlite", metrics: metrics, clock: clock)
        let failure = StoreError(.unavailable, detail: "disk I/O error")

        fake.setLatency(.milliseconds(20))
        fake.setFailure(failure)
        await #expect(throws: failure) { try await store.insertResult(code: "c", payload: [1], expiresAt: Date()) }
        await #expect(throws: failure) { try await store.insertResult(code: "d", payload: [1], expiresAt: Date()) }
        await #expect(throws: failure) { try await store.deleteResult(code: "c") }
        fake.setFailure(nil)
        try await store.insertResult(code: "e", payload: [1], expiresAt: Date())

        let text = metrics.render()
        #expect(text.contains(#"auth_handler_store_errors_total{store="sqlite",operation="insert_result"} 2"# + "\n"))
        #expect(text.contains(#"auth_handler_store_errors_total{store="sqlite",operation="delete_result"} 1"# + "\n"))
        #expect(text.contains(#"auth_handler_store_errors_total{store="sqlite",operation="sweep"} 0"# + "\n"))
        // Failed calls are timed too: three inserts, two of them failed.
        #expect(
            text.contains(#"auth_handler_store_operation_seconds_count{store="sqlite",operation="insert_result"} 3"#))
        // An unhealthy store is not an error.
        fake.setHealthy(false)
        #expect(await !store.isHealthy())
        let after = metrics.render()
        #expect(after.contains(#"auth_handler_store_operation_seconds_count{store="sqlite",operation="is_healthy"} 1"#))
        #expect(!after.contains(#"auth_handler_store_errors_total{store="sqlite",operation="is_healthy"}"#))
    }

    /// A base that is a `SessionStore` and `CounterStore` only declares exactly the operations it declared before
    /// `DeviceStore` existed; a `DeviceStore` base adds its own, measured through the same helper, a conflict counted
    /// as the error it is.
    @Test func eachStoreProtocolOfTheBaseIsMeasuredAndDeclared() async throws {
        let clock = TestClock()
        let before = Metrics()
        _ = MeasuredSessionStore(SlowSessionStore(clock: clock), store: "redis", metrics: before, clock: clock)
        let declared = before.render().split(separator: "\n").filter {
            $0.hasPrefix("auth_handler_store_errors_total{")
        }
        #expect(
            declared.map { String($0) }
                == [
                    "claim_result", "decrement_counter", "delete_result", "increment_counter", "insert_result",
                    "peek_result", "record_used_state", "release_result", "sweep",
                ].map { "auth_handler_store_errors_total{store=\"redis\",operation=\"\($0)\"} 0" })

        let metrics = Metrics()
        let store = MeasuredSessionStore(
            MemorySessionStore(now: clock.read), store: "memory", metrics: metrics, clock: clock)
        try await store.putDeviceRecord(kind: .request, key: "k", payload: [1], expiresAt: clock.date + 60)
        await #expect(throws: StoreError.self) {
            try await store.putDeviceRecord(kind: .request, key: "k", payload: [2], expiresAt: clock.date + 60)
        }
        #expect(try await store.deviceRecord(kind: .request, key: "k", now: clock.date) == [1])
        #expect(try await store.decideOnce(key: "d", expiresAt: clock.date + 60))
        #expect(try await store.isDecided(key: "d", now: clock.date))
        try await store.deleteDeviceRecord(kind: .request, key: "k")
        let text = metrics.render()
        func labels(_ operation: String) -> String { "store=\"memory\",operation=\"\(operation)\"" }
        #expect(text.contains("auth_handler_store_operation_seconds_count{\(labels("put_device_record"))} 2\n"))
        #expect(text.contains("auth_handler_store_errors_total{\(labels("put_device_record"))} 1\n"))
        for operation in ["device_record", "decide_once", "is_decided", "delete_device_record"] {
            #expect(text.contains("auth_handler_store_operation_seconds_count{\(labels(operation))} 1\n"))
            #expect(text.contains("auth_handler_store_errors_total{\(labels(operation))} 0\n"))
        }
        #expect(text.contains("auth_handler_store_errors_total{\(labels("record_used_state"))} 0\n"))
    }

    @Test func storeLabelsAreEscapedPerTheExpositionFormat() {
        let metrics = Metrics()
        metrics.observeStore(store: "a\"b\\c\nd", operation: "peek_result", seconds: 0.001)
        metrics.storeFailed(store: "a\"b\\c\nd", operation: "peek_result")
        let text = metrics.render()
        let labels = #"store="a\"b\\c\nd",operation="peek_result""#
        #expect(text.contains("auth_handler_store_operation_seconds_bucket{\(labels),le=\"0.001\"} 1\n"))
        #expect(text.contains("auth_handler_store_operation_seconds_count{\(labels)} 1\n"))
        #expect(text.contains("auth_handler_store_errors_total{\(labels)} 1\n"))
    }

    @Test func requestLatencyStillRendersAsBefore() {
        let metrics = Metrics()
        metrics.observe(route: "/__/auth/result", seconds: 0.02)
        let text = metrics.render()
        let route = #"route="/__/auth/result""#
        #expect(text.contains("auth_handler_request_duration_seconds_bucket{\(route),le=\"0.01\"} 0\n"))
        #expect(text.contains("auth_handler_request_duration_seconds_bucket{\(route),le=\"0.025\"} 1\n"))
        #expect(text.contains("auth_handler_request_duration_seconds_bucket{\(route),le=\"+Inf\"} 1\n"))
        #expect(text.contains("auth_handler_request_duration_seconds_sum{\(route)} 0.02\n"))
    }
}

/// A store whose every call takes `latency` on the manual clock and then throws `failure` when one is set; otherwise
/// it answers like a store holding one available result.
private final class SlowSessionStore: SessionStore, CounterStore {
    private struct Behaviour {
        var latency: Duration = .zero
        var failure: StoreError?
        var healthy = true
        var usedStates: Set<String> = []
    }

    private let clock: TestClock
    private let behaviour = Mutex(Behaviour())

    init(clock: TestClock) {
        self.clock = clock
    }

    func setLatency(_ latency: Duration) { behaviour.withLock { $0.latency = latency } }
    func setFailure(_ failure: StoreError?) { behaviour.withLock { $0.failure = failure } }
    func setHealthy(_ healthy: Bool) { behaviour.withLock { $0.healthy = healthy } }

    /// Spends the latency, then throws the failure if any.
    private func call() throws(StoreError) {
        let (latency, failure) = behaviour.withLock { ($0.latency, $0.failure) }
        clock.advance(by: latency)
        if let failure { throw failure }
    }

    func recordUsedState(key: String, expiresAt: Date) async throws(StoreError) -> Bool {
        try call()
        return behaviour.withLock { $0.usedStates.insert(key).inserted }
    }

    func insertResult(code: String, payload: [UInt8], expiresAt: Date) async throws(StoreError) { try call() }

    func peekResult(code: String, now: Date) async throws(StoreError) -> ResultLookup {
        try call()
        return .available([1])
    }

    func claimResult(code: String, now: Date) async throws(StoreError) -> ResultLookup {
        try call()
        return .available([1])
    }

    func releaseResult(code: String) async throws(StoreError) { try call() }

    func deleteResult(code: String) async throws(StoreError) { try call() }

    func sweep(now: Date) async throws(StoreError) -> Int {
        try call()
        return 0
    }

    func incrementCounter(key: String, window: Duration) async throws(StoreError) -> CounterReading {
        try call()
        return CounterReading(count: 1, remaining: window)
    }

    func decrementCounter(key: String) async throws(StoreError) { try call() }

    func healthProblem() async -> String? {
        clock.advance(by: behaviour.withLock { $0.latency })
        return behaviour.withLock { $0.healthy } ? nil : "the test store is unhealthy"
    }
}
