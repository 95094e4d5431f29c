import Foundation
import Synchronization

/// The per-instance pacing of device sign-ins (HTTP-API.md §3.9): how fast each device code may be polled. (The
/// wrong user codes an address may enter are counted in the store, shared by every instance: device sign-in's
/// `DeviceCodeEntryLimit`.)
///
/// Poll spacing is measured on this process's monotonic clock (RFC 8628 §3.5 `slow_down`), so a wall-clock step
/// changes nothing; a reload keeps it. It is not shared between instances: behind a balancer that spreads one
/// device's polls over several instances, each instance measures the polls it sees, which only ever spaces them
/// further apart, so a client that waits its interval is never told `slow_down`.
package final class DevicePacing: Sendable {
    /// How much `slow_down` adds to a device code's interval (RFC 8628 §3.5).
    package static let slowDownIncrement = 5
    /// The most device codes whose polls are tracked at once by default; beyond it, new codes are not paced until old
    /// ones expire (a flood of issued codes cannot grow the table without bound).
    package static let maximumTrackedCodes = 200_000

    /// One device code's polling: its current interval and when it was last polled.
    /// Times are the monotonic clock's, as the span since this value was made.
    private struct Poll {
        var interval: Int
        var last: Duration
        var expires: Duration
    }

    private struct State {
        var polls: [String: Poll] = [:]
        /// The tracked codes in expiry order, so a poll drops the expired ones in O(log n) each instead of
        /// scanning the table: a full table must not make every poll cost O(n).
        var expiries = ExpiryQueue<String>()
        /// Entries eviction has looked at, ever: for tests, which check it grows with the codes that expire rather
        /// than with the polls.
        var evictionSteps = 0
    }

    /// The answer for one poll.
    package struct PollPace: Sendable, Equatable {
        /// Whether the poll came sooner than the code's interval after the previous one.
        package var tooSoon: Bool
        /// The code's interval after this poll, in seconds.
        package var interval: Int
    }

    /// The most device codes tracked at once (``maximumTrackedCodes`` unless a test chooses fewer).
    package let trackedCodeLimit: Int
    /// The monotonic time since this value was made (docs/ARCHITECTURE.md "Time").
    private let elapsed: @Sendable () -> Duration
    private let state = Mutex(State())

    /// Poll spacing on `clock` (the process's `ContinuousClock` in the daemon, a test's clock in tests).
    package init<C: Clock>(clock: C, trackedCodeLimit: Int = DevicePacing.maximumTrackedCodes)
    where C.Duration == Duration {
        self.trackedCodeLimit = max(1, trackedCodeLimit)
        let start = clock.now
        elapsed = { start.duration(to: clock.now) }
    }

    /// Poll spacing on the process's monotonic clock.
    package convenience init() {
        self.init(clock: ContinuousClock())
    }

    /// Records a poll of the device code tagged `tag`, whose interval starts at `interval` seconds and which expires
    /// in `lifetime`. A poll sooner than the interval after the previous one raises the interval by
    /// ``slowDownIncrement``; the first poll is never too soon.
    package func poll(_ tag: String, interval: Int, lifetime: Duration) -> PollPace {
        let current = elapsed()
        return state.withLock { state in
            Self.evictExpired(&state, at: current)
            guard var poll = state.polls[tag] else {
                if state.polls.count < trackedCodeLimit {
                    let expires = current + lifetime
                    state.polls[tag] = Poll(interval: interval, last: current, expires: expires)
                    state.expiries.push(tag, expires: expires)
                }
                return PollPace(tooSoon: false, interval: interval)
            }
            let tooSoon = current - poll.last < .seconds(poll.interval)
            if tooSoon { poll.interval += Self.slowDownIncrement }
            poll.last = current
            state.polls[tag] = poll
            return PollPace(tooSoon: tooSoon, interval: poll.interval)
        }
    }

    /// Forgets a device code whose result was delivered.
    package func forget(_ tag: String) {
        state.withLock { state in
            guard state.polls.removeValue(forKey: tag) != nil else { return }
            // Its queue entry stays until it expires. Should forgotten entries come to outnumber the live ones by
            // more than a margin, the queue is rebuilt from the table: O(n log n) once per n forgets.
            guard state.expiries.count > 2 * state.polls.count + 1024 else { return }
            state.evictionSteps += state.polls.count
            state.expiries.rebuild(from: state.polls.map { (expires: $0.value.expires, key: $0.key) })
        }
    }

    /// Entries eviction has looked at since this value was made (for tests).
    package var evictionSteps: Int { state.withLock { $0.evictionSteps } }

    /// How many device codes are paced now (for tests).
    package var trackedCodes: Int { state.withLock { $0.polls.count } }

    /// Drops every code expired at `current`, earliest first: one O(log n) step per queued entry, each entry popped
    /// once, so the cost follows the codes that expire, not the size of the table.
    private static func evictExpired(_ state: inout State, at current: Duration) {
        while let entry = state.expiries.popExpired(at: current) {
            state.evictionSteps += 1
            // A code forgotten, or forgotten and tracked again, has no record or a later one: not this entry's.
            if state.polls[entry.key]?.expires == entry.expires { state.polls.removeValue(forKey: entry.key) }
        }
    }
}
