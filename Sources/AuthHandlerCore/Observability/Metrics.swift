import AuthHandlerSystem
import Foundation
import Synchronization

/// The daemon's Prometheus metrics (`GET /metrics`, text exposition format 0.0.4).
package final class Metrics: Sendable {
    /// Upper bounds of the request latency histogram, in seconds.
    static let latencyBuckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    /// Upper bounds of the store operation histogram, in seconds: a store call takes tens of microseconds (SQLite,
    /// memory) to a millisecond (Redis), and a Redis command gives up after 2 s.
    static let storeLatencyBuckets: [Double] = [
        0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
    ]

    private struct Histogram {
        let bounds: [Double]
        var buckets: [UInt64]
        var count: UInt64 = 0
        var sum: Double = 0

        init(bounds: [Double]) {
            self.bounds = bounds
            self.buckets = [UInt64](repeating: 0, count: bounds.count)
        }

        mutating func observe(_ seconds: Double) {
            for (index, bound) in bounds.enumerated() where seconds <= bound {
                buckets[index] += 1
            }
            count += 1
            sum += seconds
        }
    }

    /// A store operation's series: the store kind and the operation.
    private struct StoreSeries: Hashable, Comparable {
        let store: String
        let operation: String

        static func < (lhs: Self, rhs: Self) -> Bool { (lhs.store, lhs.operation) < (rhs.store, rhs.operation) }

        var labels: String { "store=\"\(Metrics.label(store))\",operation=\"\(Metrics.label(operation))\"" }
    }

    private struct State {
        var started: [String: UInt64] = [:]
        var completed: [String: UInt64] = [:]
        /// Keyed by provider, then outcome.
        var failed: [String: [String: UInt64]] = [:]
        var redemptions: [String: UInt64] = [:]
        var latency: [String: Histogram] = [:]
        var storeLatency: [StoreSeries: Histogram] = [:]
        var storeErrors: [StoreSeries: UInt64] = [:]
        /// Sign-ins started and not yet called back, by the second they expire (at most `sessionTTLSeconds` keys).
        var pendingByExpiry: [Int: Int] = [:]

        mutating func prunePending(now: Date) {
            let current = Int(now.timeIntervalSince1970)
            pendingByExpiry = pendingByExpiry.filter { $0.key > current }
        }
    }

    private let state = Mutex(State())
    /// The accounts backend's counters (rendered once one is built).
    package let accounts = AccountsMetrics()

    package init() {}

    package func signInStarted(provider: String) {
        state.withLock { $0.started[provider, default: 0] += 1 }
    }

    /// A sign-in started whose pending state expires at `expiresAt` (it lives in the browser's cookie, so this
    /// process counts what it started: the gauge is per instance).
    package func pendingStarted(expiresAt: Date, now: Date) {
        state.withLock { state in
            state.pendingByExpiry[Int(expiresAt.timeIntervalSince1970.rounded(.up)), default: 0] += 1
            if state.pendingByExpiry.count > 4096 { state.prunePending(now: now) }
        }
    }

    /// The callback of a sign-in that would have expired at `expiresAt` arrived.
    package func pendingEnded(expiresAt: Date) {
        state.withLock { state in
            let key = Int(expiresAt.timeIntervalSince1970.rounded(.up))
            if let count = state.pendingByExpiry[key], count > 0 { state.pendingByExpiry[key] = count - 1 }
        }
    }

    package func signInCompleted(provider: String) {
        state.withLock { $0.completed[provider, default: 0] += 1 }
    }

    /// A sign-in that failed with `code`, counted under the code's string (its `outcome` label).
    package func signInFailed(provider: String, code: APIError.Code) {
        state.withLock { $0.failed[provider, default: [:]][code.rawValue, default: 0] += 1 }
    }

    /// A redemption that answered with the result, counted under the `success` outcome.
    package func redemptionSucceeded() {
        state.withLock { $0.redemptions["success", default: 0] += 1 }
    }

    /// A redemption refused with `code`, counted under the code's string (its `outcome` label).
    package func redemptionFailed(code: APIError.Code) {
        state.withLock { $0.redemptions[code.rawValue, default: 0] += 1 }
    }

    /// Records one request's latency under its route (`/__/auth/handler`, `/__/auth/result`, `other`).
    package func observe(route: String, seconds: Double) {
        state.withLock { state in
            state.latency[route, default: Histogram(bounds: Self.latencyBuckets)].observe(seconds)
        }
    }

    /// Starts the error counters of `store`'s `operations` at zero, so that a rate over them exists before the first
    /// error.
    package func storeDeclared(store: String, operations: [String]) {
        state.withLock { state in
            for operation in operations {
                state.storeErrors[StoreSeries(store: store, operation: operation), default: 0] += 0
            }
        }
    }

    /// Records one store call's duration (failed or not); `store` is the kind (`sqlite`, `redis`, `memory`).
    package func observeStore(store: String, operation: String, seconds: Double) {
        state.withLock { state in
            state.storeLatency[
                StoreSeries(store: store, operation: operation), default: Histogram(bounds: Self.storeLatencyBuckets)
            ].observe(seconds)
        }
    }

    /// Counts one store call that threw a `StoreError`.
    package func storeFailed(store: String, operation: String) {
        state.withLock { $0.storeErrors[StoreSeries(store: store, operation: operation), default: 0] += 1 }
    }

    /// The exposition text at the time `now` reads (docs/ARCHITECTURE.md "Time").
    package func render(now: WallClock = systemWallClock) -> String {
        let now = now()
        let pendingSessions = state.withLock { state in
            state.prunePending(now: now)
            return state.pendingByExpiry.values.reduce(0, +)
        }
        let snapshot = state.withLock { $0 }
        var text = ""
        func header(_ name: String, _ type: String, _ help: String) {
            text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
        }
        header("auth_handler_signins_started_total", "counter", "Sign-ins started, by provider.")
        for (provider, value) in snapshot.started.sorted(by: { $0.key < $1.key }) {
            text += "auth_handler_signins_started_total{provider=\"\(Self.label(provider))\"} \(value)\n"
        }
        header("auth_handler_signins_completed_total", "counter", "Sign-ins that came back with a result code.")
        for (provider, value) in snapshot.completed.sorted(by: { $0.key < $1.key }) {
            text += "auth_handler_signins_completed_total{provider=\"\(Self.label(provider))\"} \(value)\n"
        }
        header("auth_handler_signins_failed_total", "counter", "Sign-ins that failed, by provider and outcome.")
        for (provider, outcomes) in snapshot.failed.sorted(by: { $0.key < $1.key }) {
            for (outcome, value) in outcomes.sorted(by: { $0.key < $1.key }) {
                text +=
                    "auth_handler_signins_failed_total{provider=\"\(Self.label(provider))\","
                    + "outcome=\"\(Self.label(outcome))\"} \(value)\n"
            }
        }
        header("auth_handler_redemptions_total", "counter", "Result redemptions, by outcome.")
        for (outcome, value) in snapshot.redemptions.sorted(by: { $0.key < $1.key }) {
            text += "auth_handler_redemptions_total{outcome=\"\(Self.label(outcome))\"} \(value)\n"
        }
        header("auth_handler_request_duration_seconds", "histogram", "HTTP request latency, by route.")
        for (route, histogram) in snapshot.latency.sorted(by: { $0.key < $1.key }) {
            text += Self.render(
                histogram, name: "auth_handler_request_duration_seconds", labels: "route=\"\(Self.label(route))\"")
        }
        header(
            "auth_handler_pending_sessions", "gauge", "Sign-ins this instance started that wait for the IdP's callback."
        )
        text += "auth_handler_pending_sessions \(pendingSessions)\n"
        header(
            "auth_handler_store_operation_seconds", "histogram",
            "Session store call latency, failed calls included, by store kind and operation.")
        for (series, histogram) in snapshot.storeLatency.sorted(by: { $0.key < $1.key }) {
            text += Self.render(histogram, name: "auth_handler_store_operation_seconds", labels: series.labels)
        }
        header(
            "auth_handler_store_errors_total", "counter",
            "Session store calls that failed (the store was unavailable), by store kind and operation.")
        for (series, value) in snapshot.storeErrors.sorted(by: { $0.key < $1.key }) {
            text += "auth_handler_store_errors_total{\(series.labels)} \(value)\n"
        }
        return text + accounts.render()
    }

    /// A histogram's `_bucket`, `_sum` and `_count` lines; `labels` are already escaped, without braces.
    private static func render(_ histogram: Histogram, name: String, labels: String) -> String {
        var text = ""
        for (index, bound) in histogram.bounds.enumerated() {
            text += "\(name)_bucket{\(labels),le=\"\(bound)\"} \(histogram.buckets[index])\n"
        }
        text += "\(name)_bucket{\(labels),le=\"+Inf\"} \(histogram.count)\n"
        text += "\(name)_sum{\(labels)} \(histogram.sum)\n"
        text += "\(name)_count{\(labels)} \(histogram.count)\n"
        return text
    }

    /// Escapes a label value (backslash, quote, newline) per the exposition format.
    static func label(_ value: String) -> String {
        var escaped = ""
        for character in value {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
