import AuthHandlerCore
import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerStore
import AuthHandlerSystem
import FakeIdP
import Foundation
import Synchronization

/// A started service: the HTTP server, the flow behind it, and the store sweeper. A value: what it holds are references
/// to the running parts, which every copy shares.
struct RunningService: Sendable {
    /// `http://HOST:PORT` of the first listen address (with the real port).
    let baseURL: String
    /// `http://HOST:PORT` of the first `opsListen` address; nil without an operations listener.
    var opsBaseURL: String? { opsServer.map { "http://\($0.addresses[0])" } }
    let service: AuthHandlerService
    let server: HTTPServer
    private let opsServer: HTTPServer?
    private let sweeper: Task<Void, Never>
    /// What a reload keeps: the store, the HTTP client, the metrics and the addresses (``reload(to:environment:)``).
    let kept: KeptParts

    /// The parts of a running service a reload does not rebuild, and the config they were made from.
    struct KeptParts: Sendable {
        let config: AuthHandlerConfig
        let store: any SessionStore & DeviceStore
        let sqlitePath: String?
        let http: HTTPClient
        let log: EventLog
        let metrics: Metrics
        let publicURL: String
        let onceSignIn: OnceSignIn?
        /// Whether the listening sockets came from systemd, making `listen` irrelevant.
        let adoptedSockets: Bool
        /// The key drawn at start when neither the config nor a file holds one (memory store): a reload keeps it.
        let drawnStateKey: [UInt8]?
    }

    /// Builds everything the config describes and starts listening; `extraRoutes` are served beside HTTP-API.md's.
    static func start(
        config: AuthHandlerConfig, environment: SecretEnvironment, log: EventLog, defaultStore: StoreConfig.Kind,
        listenFDs: [Int32]? = nil, extraRoutes: [String: AuthHandlerService.ExtraRoute] = [:],
        onceSignIn: OnceSignIn? = nil
    ) async throws(ServiceStartError) -> RunningService {
        let http = try prepareProcess()
        let storeConfig = config.store.opened(defaultKind: defaultStore)
        let (bareStore, sqlitePath): (any SessionStore & DeviceStore, String?)
        do {
            (bareStore, sqlitePath) = try storeConfig.makeStore(environment: environment)
        } catch {
            throw ServiceStartError(exitCode: .config, message: error.description)
        }
        let metrics = Metrics()
        let store = measuredStore(bareStore, store: storeConfig.kind.rawValue, metrics: metrics)
        let parts = try ConfiguredParts(
            config: config, environment: environment, http: http, sqlitePath: sqlitePath, drawnStateKey: nil, log: log,
            metrics: metrics.accounts, reusing: nil)

        // The handler needs the service, and the service needs the bound port (for the redirect URI).
        let slot = Mutex<AuthHandlerService?>(nil)
        let handler: HTTPServerHandler = { request in
            guard let service = slot.withLock({ $0 }) else {
                return ResponseRendering.secured(.text("starting\n", status: 503))
            }
            return await service.handle(request)
        }
        let opsHandler: HTTPServerHandler = { request in
            guard let service = slot.withLock({ $0 }) else {
                return ResponseRendering.secured(.text("starting\n", status: 503))
            }
            return await service.handleOperations(request)
        }
        // Health, metrics and a start that needs no waiting are answered on the listener's thread, without the hop to
        // a task (AuthHandlerService.answerAtOnce).
        let immediate: HTTPServerImmediateHandler = { request in slot.withLock { $0 }?.answerAtOnce(request) }
        let opsImmediate: HTTPServerImmediateHandler = { request in
            slot.withLock { $0 }?.answerOperationsAtOnce(request)
        }
        let adoptedSockets = listenFDs.map { !$0.isEmpty } ?? false
        let (server, opsServer) = try await startServers(
            config, adopting: adoptedSockets ? listenFDs : nil,
            handlers: ListenerHandlers(
                main: handler, mainImmediate: immediate, operations: opsHandler, operationsImmediate: opsImmediate))
        let baseURL = "http://\(server.addresses[0])"
        let kept = KeptParts(
            config: config, store: store, sqlitePath: sqlitePath, http: http, log: log, metrics: metrics,
            publicURL: config.publicURL.map { $0.absoluteString } ?? baseURL, onceSignIn: onceSignIn,
            adoptedSockets: adoptedSockets, drawnStateKey: parts.drawnStateKey)
        let flow = makeFlow(parts, config: config, kept: kept, baseURL: baseURL)
        let service = AuthHandlerService(
            flow: flow, store: store, metrics: kept.metrics, log: log, extraRoutes: extraRoutes,
            onceSignIn: onceSignIn, operationsApart: opsServer != nil)
        slot.withLock { $0 = service }
        let sweeper = startSweeper(store, log: log) { service.flow.backend as? AccountsBackend }
        log.log(
            .info, "listening",
            [
                "addresses": server.addresses.map(\.description).joined(separator: ","), "publicURL": kept.publicURL,
                "opsAddresses": opsServer?.addresses.map(\.description).joined(separator: ",") ?? "none",
            ])
        let wanted = HTTPServerConfiguration().connectionLimit
        if server.connectionLimit < wanted {
            // HTTPServer lowered it to fit the descriptor limit (HTTP-API.md §3.5): slow clients fill it sooner.
            log.log(
                .warning, "listener.limit",
                [
                    "connections": String(server.connectionLimit), "wanted": String(wanted),
                    "problem": "the descriptor limit (RLIMIT_NOFILE) is low; raise LimitNOFILE= or ulimit -n",
                ])
        }
        return RunningService(
            baseURL: baseURL, service: service, server: server, opsServer: opsServer, sweeper: sweeper, kept: kept)
    }

    /// Initialises the process once (libraries, no core dumps) and makes the HTTP client.
    private static func prepareProcess() throws(ServiceStartError) -> HTTPClient {
        do {
            try ProcessSetup.ensureInitialized()
            // The process holds the state key and, for a while, tokens: no core file or ptrace-style reading of it.
            try ProcessHardening.forbidCoreDumps()
        } catch {
            throw ServiceStartError(exitCode: .config, message: "process setup failed: \(error)")
        }
        do {
            return try HTTPClient()
        } catch {
            throw ServiceStartError(exitCode: .config, message: "cannot start the HTTP client: \(error)")
        }
    }

    /// The main listener (on the adopted sockets when given, else on `listen`) and the operations listener, when
    /// `opsListen` asks for one.
    /// The handlers of the main and the operations listener.
    private struct ListenerHandlers {
        let main: HTTPServerHandler
        let mainImmediate: HTTPServerImmediateHandler
        let operations: HTTPServerHandler
        let operationsImmediate: HTTPServerImmediateHandler
    }

    private static func startServers(
        _ config: AuthHandlerConfig, adopting listenFDs: [Int32]?, handlers: ListenerHandlers
    ) async throws(ServiceStartError) -> (server: HTTPServer, opsServer: HTTPServer?) {
        let server: HTTPServer
        var configuration = config.listener.applied(to: HTTPServerConfiguration())
        // The listener refuses before any flow runs, so its pages name the product the service started with.
        let audience = PageAudience(productName: config.branding?.name, starter: .app)
        configuration.refusalRenderer = { status, message, accept in
            ResponseRendering.listenerRefusal(status: status, message: message, accept: accept, audience: audience)
        }
        // Rendered refusals are the service's pages, so they carry the service's headers (HTTP-API.md §3.5), whose
        // policy admits the pages' stylesheet.
        configuration.refusalHeaders = ResponseRendering.securityHeaders
        do {
            if let listenFDs {
                server = try HTTPServer(
                    adoptingListeningSockets: listenFDs, configuration: configuration,
                    immediate: handlers.mainImmediate,
                    handler: handlers.main)
            } else {
                server = try HTTPServer(
                    listeningOn: config.listen, configuration: configuration, immediate: handlers.mainImmediate,
                    handler: handlers.main)
            }
        } catch {
            throw ServiceStartError(exitCode: .config, message: "cannot listen: \(error); check 'listen' in the config")
        }
        // Bound by the daemon even under socket activation: the passed sockets are the main listener's.
        guard let opsListen = config.opsListen else { return (server, nil) }
        do {
            return (
                server,
                try HTTPServer(
                    listeningOn: opsListen, configuration: configuration, immediate: handlers.operationsImmediate,
                    handler: handlers.operations)
            )
        } catch {
            await server.stop(gracePeriod: .zero)
            throw ServiceStartError(
                exitCode: .config, message: "cannot listen: \(error); check 'opsListen' in the config")
        }
    }

    /// Removes entries that expired by the wall clock `now` (docs/ARCHITECTURE.md "Time") from `store`, and from the
    /// accounts database when the running backend is `accounts` (`accounts()` reads it at each sweep, so a reload is
    /// followed), every `ServeCommand.sweepInterval` until cancelled.
    private static func startSweeper(
        _ store: some SessionStore, log: EventLog, now: @escaping WallClock = systemWallClock,
        accounts: @escaping @Sendable () -> AccountsBackend?
    ) -> Task<Void, Never> {
        Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: ServeCommand.sweepInterval)
                if let swept = try? await store.sweep(now: now()), swept > 0 {
                    log.log(.info, "store.sweep", ["removed": String(swept)])
                }
                if let engine = accounts()?.engine, let swept = try? await engine.sweep(), swept > 0 {
                    log.log(.info, "accounts.sweep", ["removed": String(swept)])
                }
            }
        }
    }

    /// The flow `parts` and `config` describe, on the kept store, HTTP client and metrics; replacing `previous`, whose
    /// start-rate counters (when `startRateLimit` is unchanged) and provider-call count it keeps.
    static func makeFlow(
        _ parts: ConfiguredParts, config: AuthHandlerConfig, kept: KeptParts, baseURL: String,
        previous: SignInFlow? = nil
    ) -> SignInFlow {
        // --once sends the browser back to its own done page on its own port, and nowhere else.
        var allowedRedirects =
            kept.onceSignIn == nil
            ? config.allowedRedirectURLs.map(\.absoluteString) : [baseURL + OnceCommand.donePath]
        // With the accounts, the picker's provider sign-ins return to the picker itself (HTTP-API.md §3.6), which
        // redeems them with a verifier only it holds.
        if kept.onceSignIn == nil, parts.backend is AccountsBackend {
            allowedRedirects.append(kept.publicURL + PickerProviderRoutes.returnPath)
        }
        var settings = SignInFlow.Settings(
            redirectURI: kept.publicURL + "/__/auth/handler",
            redirectPolicy: RedirectURLPolicy(allowed: allowedRedirects), stateKeys: parts.stateKeys,
            sessionTTL: .seconds(config.sessionTTLSeconds), resultTTL: .seconds(config.resultTTLSeconds),
            providerTimeout: .seconds(config.providerTimeoutSeconds),
            requireResultChallenge: config.requireResultChallenge, startRateLimit: config.startRateLimit,
            trustedProxies: config.trustedProxies, maximumConcurrentProviderCalls: config.providerCallLimit,
            productName: config.branding?.name)
        // --once serves its own sign-in only (HTTP-API.md §1.4).
        if kept.onceSignIn == nil { settings.deviceAuthorization = config.deviceAuthorization }
        let keptLimiter = previous.flatMap {
            $0.settings.startRateLimit == config.startRateLimit ? $0.startLimiter : nil
        }
        return SignInFlow(
            settings: settings, providers: parts.providers, store: kept.store, backend: parts.backend,
            http: kept.http, observer: SignInTelemetry(log: kept.log, metrics: kept.metrics), startLimiter: keptLimiter,
            // The provider calls in flight are kept across a reload while the limit stays, so none is forgotten.
            providerCalls: previous.flatMap {
                $0.providerCalls.maximum == settings.maximumConcurrentProviderCalls ? $0.providerCalls : nil
            }, devicePacing: previous?.devicePacing)
    }

    /// Where the listeners are, as `HOST:PORT`, in order.
    var addresses: [String] { server.addresses.map(\.description) }

    /// Drains: `/readyz` turns 503, new connections are refused, requests in flight finish (10 s at most). The
    /// operations listener stays up until then, so monitoring sees the drain (`/readyz` 503) and the last metrics.
    func stop() async {
        service.beginDraining()
        sweeper.cancel()
        await server.stop(gracePeriod: .seconds(10))
        await opsServer?.stop(gracePeriod: .seconds(1))
    }
}
