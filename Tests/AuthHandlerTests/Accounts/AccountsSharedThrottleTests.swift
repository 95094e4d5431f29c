import Foundation
import Synchronization
import TestSupport
import Testing

@testable import AuthHandlerAccounts
@testable import AuthHandlerStore

/// `SharedSignInThrottle` when the database that keeps its counters fails (docs/ACCOUNTS.md "Guessing is throttled"):
/// a database that does not answer in time is `unavailable`, so the sign-in answers `503` at once rather than waiting
/// for the same database a second time at its lookup (docs/OPERATIONS.md "What each outage does").
@Suite struct AccountsSharedThrottleTests {
    let email = "alice@example.com"
    let client = ClientKey(resolved: "198.51.100.7")

    /// Counters whose increment and decrement each answer or fail as the test sets, counting the calls.
    final class Counters: CounterStore {
        let increment: StoreError.Kind?
        let decrement: StoreError.Kind?
        let calls = Mutex(0)

        init(increment: StoreError.Kind?, decrement: StoreError.Kind? = nil) {
            self.increment = increment
            self.decrement = decrement
        }

        func incrementCounter(key: String, window: Duration) async throws(StoreError) -> CounterReading {
            calls.withLock { $0 += 1 }
            if let increment { throw StoreError(increment, detail: "test counter") }
            return CounterReading(count: 1, remaining: window)
        }

        func decrementCounter(key: String) async throws(StoreError) {
            calls.withLock { $0 += 1 }
            if let decrement { throw StoreError(decrement, detail: "test counter") }
        }
    }

    func shared(_ counters: Counters) -> SharedSignInThrottle {
        let cookies = DeviceCookie(key: Array(repeating: UInt8(7), count: 32), now: TestClock().read)
        return SharedSignInThrottle(local: SignInThrottle(deviceCookies: cookies), counters: counters)
    }

    @Test("a counter that does not answer in time: unavailable, at the increment or at the refund")
    func unansweredIsUnavailable() async {
        let atIncrement = Counters(increment: .unavailable)
        #expect(await shared(atIncrement).check(email: email, client: client, deviceCookie: nil) == .unavailable)
        #expect(atIncrement.calls.withLock { $0 } == 1, "the refund was tried after a failed count")
        let atRefund = Counters(increment: nil, decrement: .unavailable)
        #expect(await shared(atRefund).check(email: email, client: client, deviceCookie: nil) == .unavailable)
    }

    @Test("a counter refused otherwise, or answering: admitted on the local rules")
    func refusedIsAdmitted() async {
        for counters in [
            Counters(increment: .conflict), Counters(increment: nil, decrement: .conflict), Counters(increment: nil),
        ] {
            #expect(await shared(counters).check(email: email, client: client, deviceCookie: nil) == .allowed)
        }
    }
}
