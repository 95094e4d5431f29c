import AuthHandlerAccounts
import AuthHandlerCore
import AuthHandlerHTTP
import Foundation

/// What a config reload could not apply; the running config stays.
struct ReloadRefusal: Error, Sendable, CustomStringConvertible {
    /// What is wrong and what to do, in one line.
    let description: String
}

/// The config-made parts of a `SignInFlow`: built at start and again, from the re-read config, on every reload.
struct ConfiguredParts {
    let providers: ProviderRegistry
    let backend: any SignInBackend
    let stateKeys: StateKeyRing
    /// The state key drawn at random (memory store, no `stateKey`), to be kept across reloads.
    let drawnStateKey: [UInt8]?

    /// Resolves every secret `config` names (files, credentials, environment) and builds the providers, the state
    /// keys and the backend. An `accounts` backend whose settings did not change is `reusing` the running one, so that
    /// a reload keeps its database, hashing pool, throttles and queued mail.
    init(
        config: AuthHandlerConfig, environment: SecretEnvironment, http: HTTPClient, sqlitePath: String?,
        drawnStateKey: [UInt8]?, log: EventLog, metrics: AccountsMetrics,
        reusing running: (config: AuthHandlerConfig, backend: any SignInBackend, stateKeys: StateKeyRing)?
    ) throws(ServiceStartError) {
        do {
            providers = try ProviderRegistry(config: config, environment: environment)
        } catch {
            throw ServiceStartError(exitCode: .config, message: "\(error); run check-config")
        }
        let reused = running.flatMap { $0.config.backend == config.backend ? $0.backend as? AccountsBackend : nil }
        // A state key the accounts database keeps was read when the running backend was built, whose keys derive
        // from it: a reload that keeps that backend keeps the key too, without asking the database again.
        let databaseKey = reused != nil && running?.config.stateKey == nil ? running?.stateKeys.current : nil
        (stateKeys, self.drawnStateKey) = try RunningService.stateKeyRing(
            config, environment: environment, sqlitePath: sqlitePath, drawn: drawnStateKey, databaseKey: databaseKey)
        var setup: AccountsSetup?
        if case .accounts = config.backend, let publicURL = config.publicURL {
            setup = AccountsSetup(
                publicURL: publicURL, stateKey: stateKeys.current, previousStateKeys: stateKeys.previous,
                environment: environment,
                appName: config.branding?.name ?? publicURL.host ?? "this app",
                metrics: metrics,
                report: { report in
                    log.log(report.isLoss ? .warning : .info, "accounts.mail", ["report": report.description])
                },
                refusedLegacyHash: { refusal in
                    // The refusal names what is wrong, never the hash (docs/ACCOUNTS.md "Imported users").
                    log.log(.warning, "accounts.legacy_hash_refused", ["reason": refusal.description])
                })
        }
        if let running, let reused {
            // The running backend's device-cookie and pending-credential keys derive from the state key, and on
            // PostgreSQL the database's check and sealed signing key follow it (docs/ACCOUNTS.md "Keys the database
            // keeps"): a new current state key is taken at a restart, which settles all of them at once.
            guard running.stateKeys.current == stateKeys.current else {
                throw ServiceStartError(
                    exitCode: .config,
                    message: "stateKey changed, which backend kind \"accounts\" takes at a restart; the running "
                        + "config stays until then")
            }
            backend = reused
            return
        }
        do {
            backend = try config.backend.makeBackend(
                secrets: environment, fetcher: http, timeout: .seconds(config.providerTimeoutSeconds),
                accounts: setup)
        } catch {
            throw ServiceStartError(exitCode: .config, message: "backend: \(error); run check-config")
        }
    }
}

extension RunningService {
    /// One line for `systemctl status`: where the service listens and which providers it serves.
    var status: String {
        let providers = service.flow.providers.ids
        return "listening on \(addresses.joined(separator: ", ")); providers: "
            + (providers.isEmpty ? "none" : providers.joined(separator: ", "))
    }

    /// Applies a re-read config to new requests: providers (and their display names), allowed redirect URLs, backend,
    /// rate limits, state keys, `requireResultChallenge`, TTLs, timeouts and `branding`. Requests in flight finish on
    /// the flow they started with; the listening sockets, the store, the HTTP client and the metrics stay.
    ///
    /// Refused, changing nothing, when `config` changes what only a restart can: `listen` (unless systemd passed the
    /// sockets, when it is ignored anyway), `store`, or `publicURL` (the redirect URI registered with every IdP and
    /// sent with the sign-ins in flight, and the cookies' `__Host-` form), or when a secret cannot be resolved.
    func reload(to config: AuthHandlerConfig, environment: SecretEnvironment) throws(ReloadRefusal) {
        let running = kept.config
        guard kept.onceSignIn == nil else {
            throw ReloadRefusal(description: "--once does not reload")
        }
        var restartOnly: [String] = []
        if !kept.adoptedSockets, config.listen != running.listen { restartOnly.append("listen") }
        if config.store != running.store { restartOnly.append("store") }
        if config.publicURL != running.publicURL { restartOnly.append("publicURL") }
        if config.opsListen != running.opsListen { restartOnly.append("opsListen") }
        guard restartOnly.isEmpty else {
            throw ReloadRefusal(
                description: "\(restartOnly.joined(separator: ", ")) changed, which needs a restart; "
                    + "the running config stays until then")
        }
        let parts: ConfiguredParts
        do {
            parts = try ConfiguredParts(
                config: config, environment: environment, http: kept.http, sqlitePath: kept.sqlitePath,
                drawnStateKey: kept.drawnStateKey, log: kept.log,
                metrics: kept.metrics.accounts,
                reusing: (running, service.flow.backend, service.flow.settings.stateKeys))
        } catch {
            throw ReloadRefusal(description: (error as ServiceStartError).message)
        }
        service.replaceFlow(
            Self.makeFlow(parts, config: config, kept: kept, baseURL: baseURL, previous: service.flow))
    }

    /// The URL of the first listener's `/healthz`, reached over loopback when it listens on a wildcard address.
    var healthURL: String {
        let first = server.addresses[0]
        let host =
            switch first.host {
            case "0.0.0.0": "127.0.0.1"
            case "::": "[::1]"
            default: first.isIPv6 ? "[\(first.host)]" : first.host
            }
        return "http://\(host):\(first.port)/healthz"
    }

    /// Whether a request through the daemon's own HTTP client (its curl event loop) to its own listener answers
    /// `/healthz` within `timeout`: the watchdog's proof that the daemon serves. With `opsListen` the main listener
    /// answers `/healthz` with the service's own 404, which proves the same.
    func answersHealthCheck(within timeout: Duration) async -> Bool {
        let request = OutboundRequest(url: healthURL, timeout: timeout)
        guard let status = (try? await kept.http.send(request))?.status else { return false }
        return status == 200 || (opsBaseURL != nil && status == 404)
    }
}
