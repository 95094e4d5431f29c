/// The keep-alive side of `WatchdogSec=` (systemd.service(5), sd_watchdog_enabled(3)): while the daemon can answer
/// a request end to end, `WATCHDOG=1` goes out every half of `$WATCHDOG_USEC`; when it cannot, the pings stop and
/// systemd restarts it.
package enum SystemdWatchdog {
    /// How often to ping: half of `$WATCHDOG_USEC`, as sd_watchdog_enabled(3) recommends; nil when the variable is
    /// unset or not a positive number, or when `$WATCHDOG_PID` is set and names another process.
    package static func pingInterval(environment: [String: String], pid: Int32) -> Duration? {
        guard let text = environment["WATCHDOG_USEC"], let microseconds = UInt64(text), microseconds > 0 else {
            return nil
        }
        if let owner = environment["WATCHDOG_PID"], !owner.isEmpty, Int32(owner) != pid { return nil }
        return .microseconds(microseconds / 2)
    }

    /// Until cancelled, every `interval`: runs `probe` and calls `ping` only when it succeeded.
    ///
    /// The schedule keeps to fixed deadlines, so a slow probe does not push later pings back; a probe slower than the
    /// interval delays its own ping, which is the point. After falling behind it starts afresh rather than bursting.
    package static func run(
        every interval: Duration, probe: @Sendable () async -> Bool, ping: @Sendable () -> Void
    ) async {
        let clock = ContinuousClock()
        var deadline = clock.now
        while !Task.isCancelled {
            if await probe(), !Task.isCancelled { ping() }
            deadline += interval
            let now = clock.now
            if deadline < now { deadline = now }
            do {
                try await Task.sleep(until: deadline, clock: clock)
            } catch {
                return
            }
        }
    }
}
