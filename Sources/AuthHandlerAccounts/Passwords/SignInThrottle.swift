import AuthHandlerSystem
import Foundation
import Synchronization

/// The in-memory ``SignInThrottling`` of one instance (issue 25 §3; OWASP Authentication Cheat Sheet, "Protect
/// Against Automated Attacks"; NIST SP 800-63B-4 §3.2.2; OWASP's "Slow Down Online Guessing Attacks with Device
/// Cookies"). Counters key on the normalised e-mail whether or not an account
/// has it, so that the answers do not say which e-mails exist, and nobody can lock an owner out:
///
/// - **One e-mail from one client:** the `pairFailures`-th failure (10) within `window` (15 minutes) refuses that
///   pair for `firstLock` (1 minute), and each further failure doubles it, up to `longestLock` (15 minutes). The
///   pair starts afresh once `window` passes after a refusal ends without a failure.
/// - **One e-mail from everywhere:** after `emailFailures` (100) consecutive failures from all clients, clients
///   without a valid device cookie for that e-mail are refused for `firstLock`, doubling with each further failure
///   up to `longestLock`; a client presenting one is not refused by this rule, so the owner's devices keep working
///   while a botnet guesses. The count is forgotten `emailIdle` (a day) after its last failure.
/// - A success clears its pair and the e-mail's consecutive count. A refusal is not a failure: nothing was hashed.
///
/// Memory is bounded: at most `maxEntries` pairs and as many e-mails (default 100,000 each, a few tens of MB at
/// worst). Expired records are swept every minute, and when a table is full, at most once a second; if it is still
/// full, the tenth of it with the oldest last failure is forgotten. Filling the table costs an attacker a hash per
/// entry, which the ``HashingBudget`` meters.
package final class SignInThrottle: SignInThrottling {
    /// The numbers of the rules above.
    package struct Rules: Sendable {
        package var pairFailures = 10
        package var window: TimeInterval = 15 * 60
        package var firstLock: TimeInterval = 60
        package var longestLock: TimeInterval = 15 * 60
        package var emailFailures = 100
        package var emailIdle: TimeInterval = 24 * 60 * 60

        package init() {}
    }

    private struct Pair: Hashable {
        let email: String
        let client: ClientKey
    }

    private struct PairRecord {
        /// The failures within `window`, at most `pairFailures` of them.
        var failures: [Date] = []
        var locks = 0
        var lockedUntil: Date?
        var last: Date
    }

    private struct EmailRecord {
        var consecutive = 0
        var lockedUntil: Date?
        var last: Date
    }

    private struct State {
        var pairs: [Pair: PairRecord] = [:]
        var emails: [String: EmailRecord] = [:]
        var lastSweep: Date
    }

    package let rules: Rules
    package let maxEntries: Int
    private let deviceCookies: DeviceCookie
    private let now: WallClock
    private let state: Mutex<State>

    /// - Parameters:
    ///   - deviceCookies: verifies the device cookie a sign-in presents.
    ///   - rules: the limits (the defaults are the issue's).
    ///   - maxEntries: the most pairs, and the most e-mails, remembered.
    ///   - now: the clock, injected so that tests move time.
    package init(
        deviceCookies: DeviceCookie, rules: Rules = Rules(), maxEntries: Int = 100_000,
        now: @escaping WallClock = systemWallClock
    ) {
        self.deviceCookies = deviceCookies
        self.rules = rules
        self.maxEntries = max(1, maxEntries)
        self.now = now
        state = Mutex(State(lastSweep: now()))
    }

    package func check(email: String, client: ClientKey, deviceCookie: String?) -> SignInAdmission {
        let current = now()
        let (pairUntil, emailUntil) = state.withLock { state in
            (state.pairs[Pair(email: email, client: client)]?.lockedUntil, state.emails[email]?.lockedUntil)
        }
        if let pairUntil, pairUntil > current { return Self.throttled(until: pairUntil, now: current) }
        guard let emailUntil, emailUntil > current else { return .allowed }
        if let deviceCookie, deviceCookies.verify(deviceCookie, email: email) == .valid { return .allowed }
        return Self.throttled(until: emailUntil, now: current)
    }

    package func recordFailure(email: String, client: ClientKey) {
        let current = now()
        let rules = self.rules
        state.withLock { state in
            sweepIfDue(&state, at: current)
            let key = Pair(email: email, client: client)
            var pair = state.pairs[key] ?? PairRecord(last: current)
            if let until = pair.lockedUntil, current >= until.addingTimeInterval(rules.window) {
                pair = PairRecord(last: current)
            }
            let recent = pair.failures.filter { current.timeIntervalSince($0) < rules.window }
            pair.failures = Array(recent.suffix(rules.pairFailures - 1)) + [current]
            pair.last = current
            if pair.locks > 0 || pair.failures.count >= rules.pairFailures {
                pair.locks += 1
                pair.lockedUntil = current.addingTimeInterval(lockDuration(after: pair.locks))
            }
            state.pairs[key] = pair

            var record = state.emails[email] ?? EmailRecord(last: current)
            if current.timeIntervalSince(record.last) >= rules.emailIdle { record = EmailRecord(last: current) }
            record.consecutive += 1
            record.last = current
            if record.consecutive >= rules.emailFailures {
                let locks = record.consecutive - rules.emailFailures + 1
                record.lockedUntil = current.addingTimeInterval(lockDuration(after: locks))
            }
            state.emails[email] = record
        }
    }

    package func recordSuccess(email: String, client: ClientKey) {
        state.withLock { state in
            state.pairs[Pair(email: email, client: client)] = nil
            state.emails[email] = nil
        }
    }

    /// How many pairs and e-mails are remembered now (for tests and metrics).
    package var entries: (pairs: Int, emails: Int) { state.withLock { ($0.pairs.count, $0.emails.count) } }

    /// `firstLock` doubled `locks - 1` times, at most `longestLock`.
    private func lockDuration(after locks: Int) -> TimeInterval {
        min(rules.firstLock * pow(2, Double(min(max(locks - 1, 0), 30))), rules.longestLock)
    }

    private static func throttled(until: Date, now: Date) -> SignInAdmission {
        let seconds = until.timeIntervalSince(now).rounded(.up)
        return .throttled(retryAfterSeconds: max(1, Int(min(seconds, Double(Int32.max)))))
    }

    /// Drops expired records every minute, or at most once a second when a table is full; when one is still full,
    /// forgets the tenth of it with the oldest last failure.
    private func sweepIfDue(_ state: inout State, at current: Date) {
        let sinceSweep = current.timeIntervalSince(state.lastSweep)
        let full = state.pairs.count >= maxEntries || state.emails.count >= maxEntries
        guard sinceSweep >= 60 || (full && sinceSweep >= 1) else {
            if full { Self.forgetOldest(&state, maxEntries: maxEntries) }
            return
        }
        state.lastSweep = current
        let rules = self.rules
        state.pairs = state.pairs.filter { _, record in
            let end = max(record.last, record.lockedUntil ?? record.last)
            return current.timeIntervalSince(end) < rules.window
        }
        state.emails = state.emails.filter { _, record in
            current.timeIntervalSince(record.last) < rules.emailIdle
        }
        Self.forgetOldest(&state, maxEntries: maxEntries)
    }

    private static func forgetOldest(_ state: inout State, maxEntries: Int) {
        if state.pairs.count >= maxEntries {
            let oldest = state.pairs.sorted { $0.value.last < $1.value.last }.prefix(max(1, maxEntries / 10))
            for (key, _) in oldest { state.pairs[key] = nil }
        }
        if state.emails.count >= maxEntries {
            let oldest = state.emails.sorted { $0.value.last < $1.value.last }.prefix(max(1, maxEntries / 10))
            for (key, _) in oldest { state.emails[key] = nil }
        }
    }
}
