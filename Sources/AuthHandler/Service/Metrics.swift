import Foundation
import Synchronization

/// The daemon's Prometheus metrics (`GET /metrics`, text exposition format 0.0.4).
public final class Metrics: Sendable {
    /// Upper bounds of the request latency histogram, in seconds.
    static let latencyBuckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    private struct Histogram {
        var buckets = [UInt64](repeating: 0, count: Metrics.latencyBuckets.count)
        var count: UInt64 = 0
        var sum: Double = 0
    }

    private struct State {
        var started: [String: UInt64] = [:]
        var completed: [String: UInt64] = [:]
        /// Keyed by provider, then outcome.
        var failed: [String: [String: UInt64]] = [:]
        var redemptions: [String: UInt64] = [:]
        var latency: [String: Histogram] = [:]
        /// Sign-ins started and not yet called back, by the second they expire (at most `sessionTTLSeconds` keys).
        var pendingByExpiry: [Int: Int] = [:]

        mutating func prunePending(now: Date) {
            let current = Int(now.timeIntervalSince1970)
            pendingByExpiry = pendingByExpiry.filter { $0.key > current }
        }
    }

    private let state = Mutex(State())

    public init() {}

    public func signInStarted(provider: String) {
        state.withLock { $0.started[provider, default: 0] += 1 }
    }

    /// A sign-in started whose pending state expires at `expiresAt` (it lives in the browser's cookie, so this
    /// process counts what it started: the gauge is per instance).
    public func pendingStarted(expiresAt: Date, now: Date) {
        state.withLock { state in
            state.pendingByExpiry[Int(expiresAt.timeIntervalSince1970.rounded(.up)), default: 0] += 1
            if state.pendingByExpiry.count > 4096 { state.prunePending(now: now) }
        }
    }

    /// The callback of a sign-in that would have expired at `expiresAt` arrived.
    public func pendingEnded(expiresAt: Date) {
        state.withLock { state in
            let key = Int(expiresAt.timeIntervalSince1970.rounded(.up))
            if let count = state.pendingByExpiry[key], count > 0 { state.pendingByExpiry[key] = count - 1 }
        }
    }

    public func signInCompleted(provider: String) {
        state.withLock { $0.completed[provider, default: 0] += 1 }
    }

    /// A sign-in that failed with `code`, counted under the code's string (its `outcome` label).
    public func signInFailed(provider: String, code: HandlerError.Code) {
        state.withLock { $0.failed[provider, default: [:]][code.rawValue, default: 0] += 1 }
    }

    /// A redemption that answered with the result, counted under the `success` outcome.
    public func redemptionSucceeded() {
        state.withLock { $0.redemptions["success", default: 0] += 1 }
    }

    /// A redemption refused with `code`, counted under the code's string (its `outcome` label).
    public func redemptionFailed(code: HandlerError.Code) {
        state.withLock { $0.redemptions[code.rawValue, default: 0] += 1 }
    }

    /// Records one request's latency under its route (`/__/auth/handler`, `/__/auth/result`, `other`).
    public func observe(route: String, seconds: Double) {
        state.withLock { state in
            var histogram = state.latency[route] ?? Histogram()
            for (index, bound) in Self.latencyBuckets.enumerated() where seconds <= bound {
                histogram.buckets[index] += 1
            }
            histogram.count += 1
            histogram.sum += seconds
            state.latency[route] = histogram
        }
    }

    /// The exposition text at `now`.
    public func render(now: Date = Date()) -> String {
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
            let route = Self.label(route)
            for (index, bound) in Self.latencyBuckets.enumerated() {
                text +=
                    "auth_handler_request_duration_seconds_bucket{route=\"\(route)\",le=\"\(bound)\"} "
                    + "\(histogram.buckets[index])\n"
            }
            text += "auth_handler_request_duration_seconds_bucket{route=\"\(route)\",le=\"+Inf\"} \(histogram.count)\n"
            text += "auth_handler_request_duration_seconds_sum{route=\"\(route)\"} \(histogram.sum)\n"
            text += "auth_handler_request_duration_seconds_count{route=\"\(route)\"} \(histogram.count)\n"
        }
        header(
            "auth_handler_pending_sessions", "gauge", "Sign-ins this instance started that wait for the IdP's callback."
        )
        text += "auth_handler_pending_sessions \(pendingSessions)\n"
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
