import AuthHandlerCore
import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerStore
import AuthHandlerSystem
import FakeIdP
import Foundation
import Synchronization

/// `auth-handler serve [--config FILE]`: the daemon.
enum ServeCommand {
    /// How often expired sessions and results are swept from the store.
    static let sweepInterval: Duration = .seconds(30)

    /// Loads the config, builds the service, serves until SIGINT/SIGTERM (reloading on SIGHUP), then drains and stops.
    static func run(_ options: ServeOptions, context: CommandContext) async -> AuthHandlerExitCode {
        // First, so that a SIGHUP while starting is a reload later rather than the end of the process.
        let reloads = TerminationSignals([SIGHUP])
        let log = EventLog(syslogPrefix: EventLog.writesToJournal(environment: context.environment))
        let environment = SecretEnvironment(variables: context.environment)
        let config: AuthHandlerConfig
        switch loadConfig(path: options.config.path, environment: environment, log: log) {
        case .success(let loaded): config = loaded
        case .failure(let message): return context.fail(.config, message)
        }
        let signals = TerminationSignals()
        let running: RunningService
        do {
            running = try await RunningService.start(
                config: config, environment: environment, log: log, defaultStore: .sqlite,
                listenFDs: SystemdSockets.listenFDs(environment: context.environment))
        } catch {
            return context.fail(error.exitCode, error.message)
        }
        context.output.line("auth-handler listening on \(running.baseURL)")
        if let opsURL = running.opsBaseURL { context.output.line("auth-handler ops listening on \(opsURL)") }
        let lifecycle = ServeLifecycle(
            running: running, notifier: SystemdNotifier.fromEnvironment(context.environment, log: log), log: log,
            configPath: options.config.path, environment: environment)
        lifecycle.begin(
            reloads: reloads,
            watchdogInterval: SystemdWatchdog.pingInterval(
                environment: context.environment, pid: getpid()))
        let signal = await signals.next()
        log.log(.info, "shutdown", ["signal": signal.map(String.init) ?? "none"])
        lifecycle.beginStopping()
        await running.stop()
        return .success
    }

    /// The validated config, or one line saying what is wrong and what to do.
    static func loadConfig(path: String, environment: SecretEnvironment, log: EventLog) -> ConfigOutcome {
        let (outcome, warnings) = readConfig(path: path, environment: environment)
        // Only a usable config gets its warnings logged: a failed start prints exactly one line.
        if case .success(let config) = outcome {
            log.setFormat(config.logFormat)
            logWarnings(warnings, log: log)
        }
        return outcome
    }

    /// The validated config or one line saying what is wrong, and the config's warnings (logged by the caller).
    static func readConfig(path: String, environment: SecretEnvironment) -> (ConfigOutcome, warnings: [ConfigProblem]) {
        let report: ConfigReport
        do {
            report = try ConfigLoader(environment: environment).load(fileAt: path)
        } catch {
            return (.failure("\(error)"), [])
        }
        guard let config = report.config, report.errors.isEmpty else {
            let first = report.errors.first.map { "\($0.path): \($0.message)" } ?? "the config is not valid"
            return (
                .failure(
                    "\(path) has \(report.errors.count) problem(s), the first: \(first); "
                        + "run 'auth-handler check-config --config \(path)' to see them all"), []
            )
        }
        return (.success(config), report.warnings)
    }

    static func logWarnings(_ warnings: [ConfigProblem], log: EventLog) {
        for warning in warnings {
            log.log(.warning, "config", ["path": warning.path.description, "problem": warning.message])
        }
    }

    enum ConfigOutcome {
        case success(AuthHandlerConfig)
        case failure(String)
    }
}

/// Why the service could not start, as an exit code and one line.
struct ServiceStartError: Error, Sendable {
    let exitCode: AuthHandlerExitCode
    let message: String
}

extension RunningService {
    /// The keys that seal pending sign-ins: `stateKey` and `previousStateKeys` from the config; without a `stateKey`,
    /// the key the accounts' PostgreSQL database keeps (`databaseKey`: the one a reload keeps), or the key kept beside
    /// the SQLite file (generated on first start), or with the memory store `drawn` (a reload's, the key drawn at
    /// start) or a random one, which is returned as `drawn`.
    static func stateKeyRing(
        _ config: AuthHandlerConfig, environment: SecretEnvironment, sqlitePath: String?, drawn: [UInt8]? = nil,
        databaseKey: [UInt8]? = nil
    ) throws(ServiceStartError) -> (ring: StateKeyRing, drawn: [UInt8]?) {
        func resolve(_ reference: SecretReference, _ path: String) throws(ServiceStartError) -> [UInt8] {
            let secret: Secret
            do {
                secret = try reference.resolve(in: environment)
            } catch {
                throw ServiceStartError(exitCode: .config, message: "\(path): \(error); run check-config")
            }
            guard let key = StateKeyFormat.decode(secret) else {
                throw ServiceStartError(
                    exitCode: .config,
                    message: "\(path): \(reference) is not a state key; \(StateKeyFormat.expectation)")
            }
            return key
        }
        var previous: [[UInt8]] = []
        for (index, reference) in config.previousStateKeys.enumerated() {
            previous.append(try resolve(reference, "previousStateKeys[\(index)]"))
        }
        let current: [UInt8]
        var drawnKey: [UInt8]? = nil
        if let reference = config.stateKey {
            current = try resolve(reference, "stateKey")
        } else if case .accounts(let accounts) = config.backend, accounts.postgres != nil {
            // Instances on one accounts database share the key it keeps (docs/ACCOUNTS.md "Keys the database keeps"),
            // read at start and kept by reloads that keep the backend (`databaseKey`).
            do {
                let candidate = try SecureRandom.bytes(AES256GCM.keyLength)
                current =
                    try databaseKey ?? accounts.storedStateKey(candidate: candidate, environment: environment)
                    ?? candidate
            } catch {
                throw ServiceStartError(exitCode: .config, message: "stateKey: \(error)")
            }
        } else if let sqlitePath {
            current = try StateKeyFile.loadOrCreate(at: StateKeyFile.path(besideStore: sqlitePath))
        } else if let drawn {
            current = drawn
            drawnKey = drawn
        } else {
            do {
                current = try SecureRandom.bytes(AES256GCM.keyLength)
                drawnKey = current
            } catch {
                throw ServiceStartError(exitCode: .config, message: "cannot draw a state key: \(error)")
            }
        }
        do {
            return (try StateKeyRing(current: current, previous: previous), drawnKey)
        } catch {
            throw ServiceStartError(exitCode: .config, message: "stateKey: \(error)")
        }
    }
}

/// Listening sockets passed by systemd socket activation (`sd_listen_fds(3)`).
enum SystemdSockets {
    /// The descriptors 3…3+N−1 when `LISTEN_PID` is this process and `LISTEN_FDS` is N; nil otherwise.
    static func listenFDs(environment: [String: String]) -> [Int32]? {
        guard let pid = environment["LISTEN_PID"].flatMap(Int32.init), pid == getpid(),
            let count = environment["LISTEN_FDS"].flatMap(Int32.init), count > 0, count < 64
        else { return nil }
        return (0..<count).map { 3 + $0 }
    }
}
