/// One notification to the service manager (sd_notify(3)): newline-separated `VARIABLE=VALUE` assignments sent as
/// one datagram.
package enum ServiceManagerMessage: Sendable, Equatable {
    /// `READY=1`: start-up (or a reload) is finished; with a one-line `STATUS=` beside it.
    case ready(status: String)
    /// `RELOADING=1` and `MONOTONIC_USEC=`: a reload begins at this `CLOCK_MONOTONIC` time (sd_notify(3) asks for both
    /// together so that the manager can tell this reload from an earlier one).
    case reloading(monotonicMicroseconds: UInt64)
    /// `STOPPING=1`: the drain begins.
    case stopping
    /// `WATCHDOG=1`: the keep-alive ping of `WatchdogSec=` (systemd.service(5)).
    case watchdog
    /// `STATUS=`: free-form text `systemctl status` shows.
    case status(String)

    /// The datagram's text.
    package var text: String {
        switch self {
        case .ready(let status): "READY=1\nSTATUS=\(Self.oneLine(status))"
        case .reloading(let microseconds): "RELOADING=1\nMONOTONIC_USEC=\(microseconds)"
        case .stopping: "STOPPING=1"
        case .watchdog: "WATCHDOG=1"
        case .status(let status): "STATUS=\(Self.oneLine(status))"
        }
    }

    /// `text` with every line break, NUL or other control character turned into a space: a newline inside a value
    /// would start a new assignment (sd_notify(3)).
    static func oneLine(_ value: String) -> String {
        String(
            String.UnicodeScalarView(
                value.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 }))
    }
}
