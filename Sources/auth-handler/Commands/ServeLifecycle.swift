import AuthHandlerCore
import AuthHandlerHTTP
import AuthHandlerSystem
import FakeIdP
import Synchronization

/// What `serve` does between starting and draining: tells systemd its state (sd_notify(3)), keeps the watchdog fed
/// while the daemon answers, and reloads the config on SIGHUP. Without `$NOTIFY_SOCKET` only the reloads happen.
final class ServeLifecycle: Sendable {
    let running: RunningService
    let notifier: SystemdNotifier?
    let log: EventLog
    let configPath: String
    let environment: SecretEnvironment
    private let tasks = Mutex<[Task<Void, Never>]>([])
    /// Set by ``beginStopping()``; read and set under the same lock a reload holds while it applies, so no reload
    /// starts or finishes (no `READY=1`, no flow swap) once the drain has begun.
    private let stopping = Mutex(false)

    init(
        running: RunningService, notifier: SystemdNotifier?, log: EventLog, configPath: String,
        environment: SecretEnvironment
    ) {
        self.running = running
        self.notifier = notifier
        self.log = log
        self.configPath = configPath
        self.environment = environment
    }

    /// `READY=1` (every listener accepts and the store is open once `RunningService.start` returned), then the
    /// watchdog pings when `watchdogInterval` is set, and a reload for each SIGHUP.
    func begin(reloads: TerminationSignals, watchdogInterval: Duration?) {
        notifier?.notify(.ready(status: running.status), log: log)
        var started: [Task<Void, Never>] = []
        if let notifier, let watchdogInterval {
            let running = self.running
            let log = self.log
            // `.high`, like the request handlers: the ping is only as timely as a request would be.
            started.append(
                Task(priority: .high) {
                    await SystemdWatchdog.run(
                        every: watchdogInterval,
                        // Half the interval: a probe that takes its whole timeout still leaves time for the ping
                        // before systemd's WatchdogSec runs out.
                        probe: { await running.answersHealthCheck(within: watchdogInterval / 2) },
                        ping: { notifier.notify(.watchdog, log: log) })
                })
        }
        started.append(
            Task {
                for await _ in reloads.events {
                    if Task.isCancelled { return }
                    self.reload()
                }
            })
        tasks.withLock { $0 = started }
    }

    /// Re-reads the config file and applies it, or keeps the running config and logs why in one line; systemd hears
    /// `RELOADING=1` before and `READY=1` after either way.
    func reload() {
        // Held for the whole reload: beginStopping waits for a reload under way, and one after it does nothing.
        stopping.withLock { stopping in
            guard !stopping else { return }
            reloadHoldingLock()
        }
    }

    private func reloadHoldingLock() {
        notifier?.notify(.reloading(monotonicMicroseconds: MonotonicClock.microseconds()), log: log)
        let (outcome, warnings) = ServeCommand.readConfig(path: configPath, environment: environment)
        var status = running.status
        do throws(ReloadRefusal) {
            switch outcome {
            case .failure(let message): throw ReloadRefusal(description: message)
            case .success(let config):
                try running.reload(to: config, environment: environment)
                log.setFormat(config.logFormat)
            }
            ServeCommand.logWarnings(warnings, log: log)
            status = running.status
            log.log(
                .info, "reload",
                ["outcome": "applied", "providers": running.service.flow.providers.ids.joined(separator: ",")])
        } catch {
            log.log(.error, "reload", ["outcome": "refused", "problem": error.description])
            status += "; the last reload was refused (see the log)"
        }
        notifier?.notify(.ready(status: status), log: log)
    }

    /// `STOPPING=1`, and no more pings or reloads: the drain has begun.
    func beginStopping() {
        stopping.withLock { $0 = true }
        notifier?.notify(.stopping, log: log)
        for task in tasks.withLock({ $0 }) { task.cancel() }
    }
}

/// `serve`'s use of the notifier: problems become log lines, never failures (System knows no log).
extension SystemdNotifier {
    /// The notifier `$NOTIFY_SOCKET` asks for, or nil when it is unset (not run by systemd: every notification is
    /// then a no-op) or unusable (logged once, as a warning).
    static func fromEnvironment(_ environment: [String: String], log: EventLog) -> SystemdNotifier? {
        guard let value = environment["NOTIFY_SOCKET"], !value.isEmpty else { return nil }
        do {
            return try SystemdNotifier(address: try NotifySocketAddress(value))
        } catch {
            log.log(.warning, "sd_notify", ["outcome": "disabled", "problem": "\(error)"])
            return nil
        }
    }

    /// Sends one message; a failure is logged, never fatal (the manager may be gone while we drain).
    func notify(_ message: ServiceManagerMessage, log: EventLog) {
        do {
            try send(message)
        } catch {
            log.log(.warning, "sd_notify", ["outcome": "failed", "problem": "\(error)"])
        }
    }
}
