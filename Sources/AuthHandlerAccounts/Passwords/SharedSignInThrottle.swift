import AuthHandlerStore
import Foundation

/// The sign-in throttle of instances that share one accounts database (PostgreSQL; docs/ACCOUNTS.md "Guessing is
/// throttled"): this instance's ``SignInThrottle`` with all its rules, and beside it the pair rule counted in the
/// database's counters, which every instance adds to, so a guesser spreading attempts over instances behind a load
/// balancer gets no more tries than against one (OWASP Authentication Cheat Sheet, "Protect Against Automated
/// Attacks").
///
/// The shared rule is a fixed window (``CounterStore``): the `pairFailures`-th failure (10) for one e-mail from one
/// client within `window` (15 minutes), on any instances, refuses that pair until the window ends. A database that
/// does not answer in time is ``SignInAdmission/unavailable``: the sign-in answers `503` at once instead of waiting
/// for it a second time at its lookup; a database that refuses the counter otherwise leaves the local rules in force.
package final class SharedSignInThrottle: SignInThrottling {
    private let local: any SignInThrottling
    private let counters: any CounterStore
    private let rules: SignInThrottle.Rules

    package init(local: any SignInThrottling, counters: any CounterStore, rules: SignInThrottle.Rules = .init()) {
        self.local = local
        self.counters = counters
        self.rules = rules
    }

    /// The counter of the pair: the store keeps it under its SHA-256, never as text.
    private func key(_ email: String, _ client: ClientKey) -> String {
        "accounts sign-in failures\u{0}\(email)\u{0}\(client.value)"
    }

    package func check(email: String, client: ClientKey, deviceCookie: String?) async -> SignInAdmission {
        let admission = await local.check(email: email, client: client, deviceCookie: deviceCookie)
        guard admission == .allowed else { return admission }
        // A counter is read by counting and taking the count back: the protocol's one atomic step.
        let key = key(email, client)
        let reading: CounterReading
        do {
            reading = try await counters.incrementCounter(key: key, window: .seconds(rules.window))
        } catch {
            if case .unavailable = error.kind { return .unavailable }
            return .allowed
        }
        do {
            try await counters.decrementCounter(key: key)
        } catch {
            if case .unavailable = error.kind { return .unavailable }
        }
        guard reading.count - 1 >= rules.pairFailures else { return .allowed }
        let seconds = reading.remaining.components.seconds + 1
        return .throttled(retryAfterSeconds: Int(max(1, seconds)))
    }

    package func recordFailure(email: String, client: ClientKey) async {
        await local.recordFailure(email: email, client: client)
        _ = try? await counters.incrementCounter(key: key(email, client), window: .seconds(rules.window))
    }

    package func recordSuccess(email: String, client: ClientKey) async {
        await local.recordSuccess(email: email, client: client)
    }
}
