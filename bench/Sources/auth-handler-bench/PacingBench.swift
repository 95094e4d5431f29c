import AuthHandlerCore
import Foundation

/// What a device poll's pacing costs (`DevicePacing.poll`, HTTP-API.md §3.9), with an empty table and with a full one:
/// `DevicePacing.maximumTrackedCodes` codes tracked, as a flood of issued codes leaves it. Prints two lines,
/// `device-poll-pace-empty NS ns/poll` and `device-poll-pace-full NS ns/poll`, each the median of five timed rounds;
/// the empty table is the full one's reference in `bench/run`.
enum PacingBench {
    /// Codes polled in turn in both rounds: tracked in both tables, each poll `slow_down`'s path.
    static let polledCodes = 64

    /// `pacing [SECONDS]`: each table timed for SECONDS in all (default 2).
    static func run(_ arguments: [String]) {
        let seconds = arguments.first.flatMap(Double.init) ?? 2
        let empty = DevicePacing(clock: ContinuousClock())
        let full = DevicePacing(clock: ContinuousClock())
        let lifetime = Duration.seconds(3600)
        for index in 0..<DevicePacing.maximumTrackedCodes {
            _ = full.poll(code(index), interval: 5, lifetime: lifetime)
        }
        let polled = (0..<polledCodes).map(code)
        for tag in polled { _ = empty.poll(tag, interval: 5, lifetime: lifetime) }
        print("device-poll-pace-empty \(nanosecondsPerPoll(empty, polled, seconds: seconds)) ns/poll")
        print("device-poll-pace-full \(nanosecondsPerPoll(full, polled, seconds: seconds)) ns/poll")
    }

    /// A device code's tag as the flow makes it: 43 characters, like a result code in base64url.
    static func code(_ index: Int) -> String {
        let digits = String(index)
        return String(repeating: "A", count: 43 - digits.count) + digits
    }

    /// The median over five rounds of the time one poll took, polling `tags` in turn.
    static func nanosecondsPerPoll(_ pacing: DevicePacing, _ tags: [String], seconds: Double) -> Int {
        var sink = 0
        var rounds: [Double] = []
        for _ in 0..<5 {
            let rate = measure(seconds: seconds / 5, batch: 1) {
                for tag in tags { sink &+= pacing.poll(tag, interval: 5, lifetime: .seconds(3600)).interval }
            }
            rounds.append(1e9 / (rate * Double(tags.count)))
        }
        if sink == 42 { print("") }
        return Int(rounds.sorted()[2].rounded())
    }
}
