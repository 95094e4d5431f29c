import Foundation
import Synchronization

/// The daemon's HTTP surface (CONTRACT §3): routes requests to the `SignInFlow` and the operations endpoints,
/// and renders every answer with the security headers.
public final class AuthHandlerService: Sendable {
    /// A route served beside the contract's, given the request and the flow (`--once` serves `/__/auth/done`).
    public typealias ExtraRoute = @Sendable (ServerRequest, SignInFlow) async -> ServerResponse

    public let flow: SignInFlow
    let store: any SessionStore
    let metrics: Metrics
    let log: EventLog
    /// Routes by exact path; they cannot replace the contract's routes, which are matched first.
    let extraRoutes: [String: ExtraRoute]
    private let draining = Atomic<Bool>(false)

    public init(
        flow: SignInFlow, store: any SessionStore, metrics: Metrics, log: EventLog,
        extraRoutes: [String: ExtraRoute] = [:]
    ) {
        self.flow = flow
        self.store = store
        self.metrics = metrics
        self.log = log
        self.extraRoutes = extraRoutes
    }

    /// Makes `/readyz` answer 503 so load balancers stop sending new sign-ins.
    public func beginDraining() {
        draining.store(true, ordering: .relaxed)
    }

    /// The HTTP server's handler.
    public func handle(_ request: ServerRequest) async -> ServerResponse {
        let began = DispatchTime.now().uptimeNanoseconds
        let route: String
        let response: ServerResponse
        switch request.path {
        case "/__/auth/handler":
            route = request.path
            response = await handler(request)
        case "/__/auth/result":
            route = request.path
            response = await result(request)
        case "/healthz":
            route = "ops"
            response = ResponseRendering.secured(.text("ok\n"))
        case "/readyz":
            route = "ops"
            response = await readiness()
        case "/metrics":
            route = "ops"
            let pending = try? await store.pendingCount(now: Date())
            var metricsResponse = ServerResponse.text(metrics.render(pendingSessions: pending))
            metricsResponse.headers.set(name: "Content-Type", value: "text/plain; version=0.0.4; charset=utf-8")
            response = ResponseRendering.secured(metricsResponse)
        default:
            if let extra = extraRoutes[request.path] {
                route = request.path
                response = ResponseRendering.secured(await extra(request, flow))
            } else {
                route = "other"
                response = ResponseRendering.error(
                    .notFound("there is nothing at this path; sign-ins start at /__/auth/handler"),
                    accept: request.headers["Accept"])
            }
        }
        metrics.observe(route: route, seconds: Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9)
        return response
    }

    private func handler(_ request: ServerRequest) async -> ServerResponse {
        let accept = request.headers["Accept"]
        let fields: [URLFormField]
        switch request.method {
        case "GET":
            fields = request.queryItems
        case "POST":
            // `response_mode=form_post`: the authorization response arrives as a form body.
            fields = request.formFields
            guard SignInFlow.isCallback(fields) else {
                return ResponseRendering.error(
                    .invalidRequest("a POST to /__/auth/handler must be a form_post authorization response"),
                    accept: accept)
            }
        default:
            // HEAD too: a link scanner's HEAD must not start a sign-in or use up a pending one.
            return ResponseRendering.error(.methodNotAllowed("use GET (or POST for form_post)"), accept: accept)
        }
        do {
            if SignInFlow.isCallback(fields) {
                let location = try await flow.callback(fields)
                return ResponseRendering.secured(.redirect(to: location, status: 303))
            }
            let location = try await flow.start(fields)
            return ResponseRendering.secured(.redirect(to: location, status: 302))
        } catch {
            return ResponseRendering.error(error, accept: accept)
        }
    }

    private func result(_ request: ServerRequest) async -> ServerResponse {
        let accept = request.headers["Accept"]
        guard request.method == "POST" else {
            return ResponseRendering.error(
                .methodNotAllowed("redeem with POST and a form body: code=...&verifier=..."), accept: accept)
        }
        do {
            let answer = try await flow.redeem(request.formFields)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            guard let response = try? ServerResponse.json(answer, encoder: encoder) else {
                return ResponseRendering.error(
                    HandlerError(status: 500, code: "internal-error", message: "the result could not be encoded"),
                    accept: accept)
            }
            return ResponseRendering.secured(response)
        } catch {
            return ResponseRendering.error(error, accept: accept)
        }
    }

    private func readiness() async -> ServerResponse {
        if draining.load(ordering: .relaxed) {
            return ResponseRendering.secured(.text("draining\n", status: 503))
        }
        guard await store.isHealthy() else {
            return ResponseRendering.secured(.text("session store unavailable\n", status: 503))
        }
        return ResponseRendering.secured(.text("ready\n"))
    }
}
