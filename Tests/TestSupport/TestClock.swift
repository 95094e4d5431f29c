import Foundation
import Synchronization

/// The one clock tests move by hand, for both kinds of time the product reads: a wall clock through `read` (the
/// `now: () -> Date` closures of the flow, the stores, the caches and the limiter) and a `Clock` (the APIs generic
/// over one, such as `MeasuredSessionStore`). Both advance together, only when a test calls `advance(by:)` or code
/// under test sleeps on it.
///
/// The code under test reads it through `read` or `now`; every such read is counted, and `gate(afterReads:)` opens a
/// gate on a given read, so a test can wait until concurrent callers have all looked at the time. A test reads
/// `date`, which is not counted.
package final class TestClock: Clock, Sendable {
    /// A point on the clock: the time advanced since it was made.
    package struct Instant: InstantProtocol {
        package var offset: Duration

        package func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        package func duration(to other: Instant) -> Duration { other.offset - offset }
        package static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct State {
        var date: Date
        var instant = Instant(offset: .zero)
        var reads = 0
        var target = 0
        var gate: TestGate?
    }

    private let state: Mutex<State>

    /// A clock whose wall time starts at `start`.
    package init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        state = Mutex(State(date: start))
    }

    /// A clock starting at the current whole second, so that expiries computed from it lie in the real future too
    /// (a Redis store compares them with Redis's own clock).
    package static func startingNow() -> TestClock {
        TestClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
    }

    /// The wall time, for the test itself (not counted as a read).
    package var date: Date { state.withLock { $0.date } }

    /// The wall-clock closure the code under test reads.
    package var read: @Sendable () -> Date {
        { [self] in counted { $0.date } }
    }

    /// The `Clock` reading of the code under test.
    package var now: Instant { counted { $0.instant } }

    package var minimumResolution: Duration { .nanoseconds(1) }

    /// Moves both readings forward (or, with a negative value, the wall time back) by `seconds`.
    package func advance(by seconds: TimeInterval) {
        state.withLock { state in
            state.date += seconds
            state.instant = state.instant.advanced(by: .seconds(seconds))
        }
    }

    /// Moves both readings forward by `duration`.
    package func advance(by duration: Duration) {
        state.withLock { Self.move(&$0, by: duration) }
    }

    /// Sleeping on this clock takes no real time: it moves the clock to `deadline` when that lies ahead.
    package func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        state.withLock { state in
            let ahead = state.instant.duration(to: deadline)
            if ahead > .zero { Self.move(&state, by: ahead) }
        }
    }

    /// A gate that opens on the `times`-th read by the code under test from now on.
    package func gate(afterReads times: Int) -> TestGate {
        let gate = TestGate()
        state.withLock { state in
            state.target = state.reads + times
            state.gate = gate
        }
        return gate
    }

    private static func move(_ state: inout State, by duration: Duration) {
        let (seconds, attoseconds) = duration.components
        state.date += Double(seconds) + Double(attoseconds) / 1e18
        state.instant = state.instant.advanced(by: duration)
    }

    private func counted<T: Sendable>(_ value: (State) -> T) -> T {
        let (result, gate) = state.withLock { state -> (T, TestGate?) in
            state.reads += 1
            return (value(state), state.reads == state.target ? state.gate : nil)
        }
        gate?.open()
        return result
    }
}
