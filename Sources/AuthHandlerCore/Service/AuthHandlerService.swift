import AuthHandlerAccounts
import AuthHandlerHTTP
import AuthHandlerStore
import Foundation
import Synchronization

/// The daemon's HTTP surface (HTTP-API.md §3): routes requests to the `SignInFlow` and the operations endpoints,
/// and renders every answer with the security headers.
package final class AuthHandlerService: Sendable {
    /// A route served beside HTTP-API.md's, given the request and the flow (`--once` serves `/__/auth/done`).
    package typealias ExtraRoute = @Sendable (ServerRequest, SignInFlow) async -> ServerResponse

    /// The flow new requests use; a reload swaps it (``replaceFlow(_:)``).
    package var flow: SignInFlow { current.withLock { $0.flow } }
    /// The flow and the routes built for it, taken together once per request.
    private let current: Mutex<(flow: SignInFlow, routes: RouteTable)>
    let store: any SessionStore
    let metrics: Metrics
    let log: EventLog
    /// Routes by exact path, on the main listener; they cannot replace HTTP-API.md's routes, which are added first.
    let extraRoutes: [String: ExtraRoute]
    /// `--once`: the one pending sign-in, kept in the process; nil in `serve`.
    let onceSignIn: OnceSignIn?
    /// Whether `/healthz`, `/readyz` and `/metrics` are served by ``handleOperations(_:)`` only (`opsListen`).
    let operationsApart: Bool
    private let draining = Atomic<Bool>(false)

    /// The listener a request came in on.
    enum ListenerRole: Sendable, Hashable {
        /// `listen` (or the sockets systemd passed): sign-ins, and the operations endpoints unless they are apart.
        case main
        /// `opsListen`: the operations endpoints only.
        case operations
    }

    package init(
        flow: SignInFlow, store: any SessionStore, metrics: Metrics, log: EventLog,
        extraRoutes: [String: ExtraRoute] = [:], onceSignIn: OnceSignIn? = nil, operationsApart: Bool = false
    ) {
        self.store = store
        self.metrics = metrics
        self.log = log
        self.extraRoutes = extraRoutes
        self.onceSignIn = onceSignIn
        self.operationsApart = operationsApart
        current = Mutex(
            (
                flow,
                Self.routes(for: flow, once: onceSignIn != nil, operationsApart: operationsApart, extra: extraRoutes)
            ))
    }

    /// The route table for `flow`: every feature group that serves in this process under that flow's configuration
    /// (docs/ARCHITECTURE.md "Routes").
    static func routes(
        for flow: SignInFlow, once: Bool, operationsApart: Bool, extra: [String: ExtraRoute]
    ) -> RouteTable {
        var groups: [any RouteGroup] = [SignInRoutes(), OperationsRoutes(apart: operationsApart)]
        // --once's port serves its one sign-in's callback and nothing an app or a device would call.
        if !once {
            groups += [RedemptionRoutes(), PickerRoutes(), ClientModuleRoutes()]
            if flow.settings.deviceAuthorization.enabled { groups.append(DeviceRoutes()) }
            if flow.backend is AccountsBackend { groups.append(AccountsRoutes()) }
        }
        groups.append(ExtraRoutes(routes: extra))
        var table = RouteTable()
        for group in groups { group.addRoutes(to: &table) }
        return table
    }

    /// Whether the service is draining (``beginDraining()``): `/readyz` then answers `503`.
    var isDraining: Bool { draining.load(ordering: .relaxed) }

    /// Makes `/readyz` answer 503 so load balancers stop sending new sign-ins.
    package func beginDraining() {
        draining.store(true, ordering: .relaxed)
    }

    /// Makes `flow` the one every request from now on uses, with the routes its configuration serves; requests
    /// already running finish on the flow they began with, so a reload changes no request halfway.
    package func replaceFlow(_ flow: SignInFlow) {
        let routes = Self.routes(
            for: flow, once: onceSignIn != nil, operationsApart: operationsApart, extra: extraRoutes)
        current.withLock { $0 = (flow, routes) }
    }

    /// The main HTTP server's handler.
    package func handle(_ request: ServerRequest) async -> ServerResponse {
        await EventLog.$requestID.withValue(Self.newRequestID()) { await route(request, on: .main) }
    }

    /// The operations listener's handler (`opsListen`): `/healthz`, `/readyz` and `/metrics`, nothing else.
    package func handleOperations(_ request: ServerRequest) async -> ServerResponse {
        await EventLog.$requestID.withValue(Self.newRequestID()) { await route(request, on: .operations) }
    }

    /// `/healthz` and `/metrics` on the main listener, and a start that needs no waiting
    /// (``SignInFlow/startImmediately(_:cookieHeaders:fetchMetadata:)``), answered at once on the listener's thread
    /// (`HTTPServerImmediateHandler`). Nil for every other request, which goes to `handle`.
    package func answerAtOnce(_ request: ServerRequest) -> ServerResponse? {
        immediate(request, on: .main)
    }

    /// `answerAtOnce` for the operations listener (`opsListen`).
    package func answerOperationsAtOnce(_ request: ServerRequest) -> ServerResponse? {
        immediate(request, on: .operations)
    }

    /// The answers that need no waiting (a route's ``Route/atOnce``), with the same metrics as `route` records; nil
    /// for the rest, which `handle` answers.
    private func immediate(_ request: ServerRequest, on listener: ListenerRole) -> ServerResponse? {
        let began = DispatchTime.now().uptimeNanoseconds
        let (flow, routes) = current.withLock { $0 }
        guard case .route(let route) = routes.lookup(method: request.method, path: request.path, on: listener),
            let atOnce = route.atOnce
        else { return nil }
        let context = Route.Context(request: request, flow: flow, listener: listener, service: self)
        let answer: ServerResponse? = EventLog.$requestID.withValue(Self.newRequestID()) { atOnce(context) }
        guard let response = answer else { return nil }
        metrics.observe(route: route.metricsLabel, seconds: Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9)
        return response
    }

    /// A short random id that ties together the log lines of one request.
    static func newRequestID() -> String {
        let hex = String(UInt64.random(in: .min ... .max), radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Answers `request` by the route table taken with the flow: the whole request runs on one configuration, even
    /// if a reload lands while it does.
    private func route(_ request: ServerRequest, on listener: ListenerRole) async -> ServerResponse {
        let began = DispatchTime.now().uptimeNanoseconds
        let (flow, routes) = current.withLock { $0 }
        let label: String
        let response: ServerResponse
        switch routes.lookup(method: request.method, path: request.path, on: listener) {
        case .route(let route):
            label = route.metricsLabel
            response = await route.answer(
                Route.Context(request: request, flow: flow, listener: listener, service: self))
        case .methodNotAllowed(let refusal):
            label = request.path
            let audience = refusal.starter.map { PageAudience(productName: flow.settings.productName, starter: $0) }
            response = ResponseRendering.error(
                APIError(.methodNotAllowed, refusal.message), accept: request.headers["Accept"],
                audience: audience ?? self.audience(flow))
        case .notFound:
            label = "other"
            let message =
                listener == .operations
                ? "this is the operations listener; it serves /healthz, /readyz and /metrics only"
                : "there is nothing at this path; sign-ins start at /__/auth/handler"
            response = ResponseRendering.error(
                APIError(.notFound, message), accept: request.headers["Accept"], audience: audience(flow))
        }
        metrics.observe(route: label, seconds: Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9)
        return response
    }

    /// Who the pages of a request under `flow` are for: the configured product, and an app or `--once`'s terminal.
    func audience(_ flow: SignInFlow) -> PageAudience {
        PageAudience(productName: flow.settings.productName, starter: onceSignIn == nil ? .app : .terminal)
    }
}
