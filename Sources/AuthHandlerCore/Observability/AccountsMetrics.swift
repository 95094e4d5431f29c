import AuthHandlerAccounts
import Foundation
import Synchronization

/// The accounts backend's share of `/metrics` (docs/OPERATIONS.md "Metrics"): sign-ups, sign-ins by method and
/// outcome, refreshes, reuse detections, throttled attempts, the hashing pool and mail. Kept by ``Metrics`` across
/// reloads; rendered only once an accounts backend has been built.
package final class AccountsMetrics: Sendable {
    private struct State {
        var enabled = false
        var signUps: [String: UInt64] = [:]
        /// Keyed by method (`password`, a provider id), then outcome.
        var signIns: [String: [String: UInt64]] = [:]
        var refreshes: [String: UInt64] = [:]
        var reuseDetections: UInt64 = 0
        /// `429` answers, by endpoint.
        var throttled: [String: UInt64] = [:]
        /// Mail reports, by outcome (`delivered`, `failed`, `gave_up`, `dropped`, `abandoned`).
        var mail: [String: UInt64] = [:]
        var hashing: (@Sendable () -> HashingSnapshot)?
    }

    private let state = Mutex(State())

    package init() {}

    /// An accounts backend was built: its section is rendered from now on, its pool read by `hashing`.
    package func attach(hashing: @escaping @Sendable () -> HashingSnapshot) {
        state.withLock {
            $0.enabled = true
            $0.hashing = hashing
        }
    }

    /// The outcome label of an answer: `success`, or the §5 error code.
    package static func outcome(_ error: AccountsError?) -> String {
        guard let error else { return "success" }
        return APIError.Code(accounts: error.code).rawValue
    }

    /// Runs `body`, telling `record` its outcome (nil on success) for `/metrics`.
    package static func counted<Value>(
        _ record: (AccountsError?) -> Void, _ body: () async throws(AccountsError) -> Value
    ) async throws(AccountsError) -> Value {
        do {
            let value = try await body()
            record(nil)
            return value
        } catch {
            record(error)
            throw error
        }
    }

    package func signUp(_ error: AccountsError?) {
        state.withLock { $0.signUps[Self.outcome(error), default: 0] += 1 }
    }

    package func signIn(method: String, _ error: AccountsError?) {
        state.withLock { $0.signIns[method, default: [:]][Self.outcome(error), default: 0] += 1 }
    }

    /// A refresh; `revokedSession` when it was a reuse that revoked its session (RFC 9700 §4.14.2).
    package func refresh(_ error: AccountsError?, revokedSession: Bool) {
        state.withLock {
            $0.refreshes[Self.outcome(error), default: 0] += 1
            if revokedSession { $0.reuseDetections += 1 }
        }
    }

    /// A `429` at `endpoint` (a path): the hashing budget or the guessing throttle.
    package func throttled(endpoint: String) {
        state.withLock { $0.throttled[endpoint, default: 0] += 1 }
    }

    package func mail(_ report: MailReport) {
        let outcome =
            switch report.event {
            case .delivered: "delivered"
            case .failed: "failed"
            case .gaveUp: "gave_up"
            case .droppedOverLimit, .droppedLimitUnavailable: "dropped"
            case .abandoned: "abandoned"
            }
        state.withLock { $0.mail[outcome, default: 0] += 1 }
    }

    /// The exposition text (format 0.0.4), empty when no accounts backend was built.
    func render() -> String {
        let snapshot = state.withLock { $0 }
        guard snapshot.enabled else { return "" }
        var text = ""
        func counter(_ name: String, _ help: String, _ values: [(labels: String, value: UInt64)]) {
            text += "# HELP \(name) \(help)\n# TYPE \(name) counter\n"
            for (labels, value) in values {
                text += labels.isEmpty ? "\(name) \(value)\n" : "\(name){\(labels)} \(value)\n"
            }
        }
        func labelled(_ name: String, _ values: [String: UInt64]) -> [(labels: String, value: UInt64)] {
            values.sorted { $0.key < $1.key }.map { ("\(name)=\"\(Metrics.label($0.key))\"", $0.value) }
        }
        counter(
            "auth_handler_accounts_signups_total", "E-mail and password sign-ups, by outcome.",
            labelled("outcome", snapshot.signUps))
        counter(
            "auth_handler_accounts_signins_total", "Account sign-ins, by method (password or provider) and outcome.",
            snapshot.signIns.sorted { $0.key < $1.key }.flatMap { method, outcomes in
                outcomes.sorted { $0.key < $1.key }.map {
                    ("method=\"\(Metrics.label(method))\",outcome=\"\(Metrics.label($0.key))\"", $0.value)
                }
            })
        counter(
            "auth_handler_accounts_refreshes_total", "Refresh-token grants, by outcome.",
            labelled("outcome", snapshot.refreshes))
        counter(
            "auth_handler_accounts_refresh_reuse_detections_total",
            "Used refresh tokens presented again outside their window; each revoked its session.",
            [("", snapshot.reuseDetections)])
        counter(
            "auth_handler_accounts_throttled_total", "Requests answered 429, by endpoint.",
            labelled("endpoint", snapshot.throttled))
        counter("auth_handler_accounts_mail_total", "Mail reports, by outcome.", labelled("outcome", snapshot.mail))
        if let hashing = snapshot.hashing?() {
            text += Self.render(hashing)
        }
        return text
    }

    private static func render(_ hashing: HashingSnapshot) -> String {
        var text = "# HELP auth_handler_accounts_hashing_queue Password hashing jobs, by state (waiting, running).\n"
        text += "# TYPE auth_handler_accounts_hashing_queue gauge\n"
        text += "auth_handler_accounts_hashing_queue{state=\"waiting\"} \(hashing.queued)\n"
        text += "auth_handler_accounts_hashing_queue{state=\"running\"} \(hashing.running)\n"
        text += "# HELP auth_handler_accounts_hashing_seconds Time each password hash or check took on the pool.\n"
        text += "# TYPE auth_handler_accounts_hashing_seconds summary\n"
        let seconds =
            Double(hashing.totalDuration.components.seconds)
            + Double(hashing.totalDuration.components.attoseconds) / 1e18
        text += "auth_handler_accounts_hashing_seconds_sum \(seconds)\n"
        text += "auth_handler_accounts_hashing_seconds_count \(hashing.completed)\n"
        text +=
            "# HELP auth_handler_accounts_hashing_refused_total Hashing requests refused before hashing, by reason.\n"
        text += "# TYPE auth_handler_accounts_hashing_refused_total counter\n"
        text += "auth_handler_accounts_hashing_refused_total{reason=\"budget\"} \(hashing.limited)\n"
        text += "auth_handler_accounts_hashing_refused_total{reason=\"busy\"} \(hashing.busy)\n"
        return text
    }
}
