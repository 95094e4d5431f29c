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
    package var flow: SignInFlow { current.withLock { $0 } }
    private let current: Mutex<SignInFlow>
    let store: any SessionStore
    let metrics: Metrics
    let log: EventLog
    /// Routes by exact path; they cannot replace HTTP-API.md's routes, which are matched first.
    let extraRoutes: [String: ExtraRoute]
    /// `--once`: the one pending sign-in, kept in the process; nil in `serve`.
    let onceSignIn: OnceSignIn?
    /// Whether `/healthz`, `/readyz` and `/metrics` are served by ``handleOperations(_:)`` only (`opsListen`).
    let operationsApart: Bool
    private let draining = Atomic<Bool>(false)

    /// The listener a request came in on.
    enum ListenerRole {
        /// `listen` (or the sockets systemd passed): sign-ins, and the operations endpoints unless they are apart.
        case main
        /// `opsListen`: the operations endpoints only.
        case operations
    }

    package init(
        flow: SignInFlow, store: any SessionStore, metrics: Metrics, log: EventLog,
        extraRoutes: [String: ExtraRoute] = [:], onceSignIn: OnceSignIn? = nil, operationsApart: Bool = false
    ) {
        current = Mutex(flow)
        self.store = store
        self.metrics = metrics
        self.log = log
        self.extraRoutes = extraRoutes
        self.onceSignIn = onceSignIn
        self.operationsApart = operationsApart
    }

    /// Makes `/readyz` answer 503 so load balancers stop sending new sign-ins.
    package func beginDraining() {
        draining.store(true, ordering: .relaxed)
    }

    /// Makes `flow` the one every request from now on uses; requests already running finish on the flow they began
    /// with, so a reload changes no request halfway.
    package func replaceFlow(_ flow: SignInFlow) {
        current.withLock { $0 = flow }
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

    /// The answers that need no waiting, with the same metrics as `route` records; nil for the rest.
    private func immediate(_ request: ServerRequest, on listener: ListenerRole) -> ServerResponse? {
        let servesOperations = listener == .operations || !operationsApart
        let began = DispatchTime.now().uptimeNanoseconds
        let route: String
        let response: ServerResponse
        switch request.path {
        case "/__/auth/handler" where listener == .main:
            let answer = EventLog.$requestID.withValue(Self.newRequestID()) { startAtOnce(request, flow: flow) }
            guard let answer else { return nil }
            route = request.path
            response = answer
        case "/healthz" where servesOperations:
            route = "ops"
            response = healthResponse()
        case "/metrics" where servesOperations:
            route = "ops"
            response = metricsResponse()
        default: return nil
        }
        metrics.observe(route: route, seconds: Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9)
        return response
    }

    private func healthResponse() -> ServerResponse {
        ResponseRendering.secured(.text("ok\n"))
    }

    private func metricsResponse() -> ServerResponse {
        var response = ServerResponse.text(metrics.render())
        response.headers.set(name: "Content-Type", value: "text/plain; version=0.0.4; charset=utf-8")
        return ResponseRendering.secured(response)
    }

    /// A short random id that ties together the log lines of one request.
    static func newRequestID() -> String {
        let hex = String(UInt64.random(in: .min ... .max), radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    private func route(_ request: ServerRequest, on listener: ListenerRole) async -> ServerResponse {
        let began = DispatchTime.now().uptimeNanoseconds
        let servesSignIns = listener == .main
        let servesOperations = listener == .operations || !operationsApart
        // Taken once: the whole request runs on one config, even if a reload lands while it does.
        let flow = self.flow
        let route: String
        let response: ServerResponse
        switch request.path {
        case "/__/auth/handler" where servesSignIns:
            route = request.path
            response = await handler(request, flow: flow)
        case "/__/auth/result" where servesSignIns && onceSignIn == nil:
            route = request.path
            response = await result(request, flow: flow)
        case "/__/auth/signin" where servesSignIns && onceSignIn == nil:
            route = request.path
            response = picker(request, flow: flow)
        case let path where servesSignIns && onceSignIn == nil && BrowserClient.paths.contains(path):
            route = path
            switch BrowserClient.response(request) {
            case .success(let content): response = content
            case .failure(let error):
                response = ResponseRendering.error(
                    error, accept: request.headers["Accept"], audience: audience(flow))
            }
        case let path
        where servesSignIns && onceSignIn == nil && flow.settings.deviceAuthorization.enabled
            && Self.isDevicePath(path):
            route = path
            response = await device(request, flow: flow)
        case "/healthz" where servesOperations:
            route = "ops"
            response = healthResponse()
        case "/readyz" where servesOperations:
            route = "ops"
            response = await readiness(on: listener)
        case "/metrics" where servesOperations:
            route = "ops"
            response = metricsResponse()
        default:
            if servesSignIns, let extra = extraRoutes[request.path] {
                route = request.path
                response = ResponseRendering.secured(await extra(request, flow))
            } else if listener == .operations {
                route = "other"
                response = ResponseRendering.error(
                    APIError(
                        .notFound, "this is the operations listener; it serves /healthz, /readyz and /metrics only"),
                    accept: request.headers["Accept"], audience: audience(flow))
            } else {
                route = "other"
                response = ResponseRendering.error(
                    APIError(.notFound, "there is nothing at this path; sign-ins start at /__/auth/handler"),
                    accept: request.headers["Accept"], audience: audience(flow))
            }
        }
        metrics.observe(route: route, seconds: Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9)
        return response
    }

    private func handler(_ request: ServerRequest, flow: SignInFlow) async -> ServerResponse {
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
                    APIError(
                        .invalidRequest, "a POST to /__/auth/handler must be a form_post authorization response"),
                    accept: accept, audience: audience(flow))
            }
        default:
            // HEAD too: a link scanner's HEAD must not start a sign-in or use up a pending one.
            return ResponseRendering.error(
                APIError(.methodNotAllowed, "use GET (or POST for form_post)"), accept: accept,
                audience: audience(flow))
        }
        // Who the request comes from, for the start rate limit that starts and callbacks share (HTTP-API.md §2.4).
        let client = ClientAddress.resolve(
            peer: request.remoteAddress, forwardedFor: request.headers.values(for: "X-Forwarded-For"),
            trusted: flow.settings.trustedProxies)
        guard SignInFlow.isCallback(fields) else {
            if onceSignIn != nil {
                // --once started its one sign-in itself; its port takes nothing but that sign-in's callback.
                return ResponseRendering.error(
                    APIError(.notFound, "this auth-handler --once listener only takes its own sign-in's callback"),
                    accept: accept, audience: audience(flow))
            }
            let outcome: Result<StartAnswer, APIError>
            do {
                outcome = .success(
                    try await flow.start(
                        fields, client: client, cookieHeaders: request.headers.values(for: "Cookie"),
                        fetchMetadata: Self.fetchMetadata(request)))
            } catch {
                outcome = .failure(error)
            }
            return startResponse(outcome, accept: accept, flow: flow)
        }
        // In --once the pending sign-in never left the process: it stands in for the browser's cookie.
        let cookies = onceSignIn.map { [$0.cookiePair] } ?? request.headers.values(for: "Cookie")
        let answer = await flow.callback(
            fields, cookieHeaders: cookies, formPost: request.method == "POST", client: client)
        var response: ServerResponse
        switch answer.outcome {
        case .redirect(let location): response = ResponseRendering.secured(.redirect(to: location, status: 303))
        case .refused(let error): response = ResponseRendering.error(error, accept: accept, audience: audience(flow))
        }
        if let clear = answer.clearCookie { response.headers.add(name: "Set-Cookie", value: clear) }
        return response
    }

    /// A start (`GET /__/auth/handler` without a callback's parameters) answered on the listener's thread when its
    /// flow needs no waiting; nil for every other request to the handler, which `handler` answers.
    private func startAtOnce(_ request: ServerRequest, flow: SignInFlow) -> ServerResponse? {
        guard request.method == "GET", onceSignIn == nil else { return nil }
        let fields = request.queryItems
        guard !SignInFlow.isCallback(fields),
            let outcome = flow.startImmediately(
                fields, cookieHeaders: request.headers.values(for: "Cookie"),
                fetchMetadata: Self.fetchMetadata(request))
        else { return nil }
        return startResponse(outcome, accept: request.headers["Accept"], flow: flow)
    }

    /// The `Sec-Fetch-*` headers a start (HTTP-API.md §3.1) and a device confirmation (§3.9) are checked by.
    static func fetchMetadata(_ request: ServerRequest) -> FetchMetadata {
        FetchMetadata(
            mode: request.headers["Sec-Fetch-Mode"], destination: request.headers["Sec-Fetch-Dest"],
            site: request.headers["Sec-Fetch-Site"])
    }

    /// A start's `302` to the provider with its cookies, or its refusal.
    private func startResponse(_ outcome: Result<StartAnswer, APIError>, accept: String?, flow: SignInFlow)
        -> ServerResponse
    {
        switch outcome {
        case .success(let answer):
            var response = ResponseRendering.secured(.redirect(to: answer.location, status: 302))
            for eviction in answer.evictions { response.headers.add(name: "Set-Cookie", value: eviction) }
            response.headers.add(name: "Set-Cookie", value: answer.setCookie)
            return response
        case .failure(let error):
            return ResponseRendering.error(error, accept: accept, audience: audience(flow))
        }
    }

    /// `GET /__/auth/signin`, the sign-in picker (HTTP-API.md §3.6): its parameters are checked as a start checks them
    /// before any page is shown.
    private func picker(_ request: ServerRequest, flow: SignInFlow) -> ServerResponse {
        let accept = request.headers["Accept"]
        guard request.method == "GET" else {
            return ResponseRendering.error(
                APIError(.methodNotAllowed, "use GET: the picker is a page a browser opens"), accept: accept,
                audience: audience(flow))
        }
        do {
            let choices = try flow.pickerChoices(request.queryItems)
            return ResponseRendering.secured(.html(SignInPickerPage.render(choices, audience: audience(flow))))
        } catch {
            return ResponseRendering.error(error, accept: accept, audience: audience(flow))
        }
    }

    /// Who the pages of a request under `flow` are for: the configured product, and an app or `--once`'s terminal.
    func audience(_ flow: SignInFlow) -> PageAudience {
        PageAudience(productName: flow.settings.productName, starter: onceSignIn == nil ? .app : .terminal)
    }

    private func result(_ request: ServerRequest, flow: SignInFlow) async -> ServerResponse {
        let accept = request.headers["Accept"]
        guard request.method == "POST" else {
            return ResponseRendering.error(
                APIError(.methodNotAllowed, "redeem with POST and a form body: code=...&verifier=..."),
                accept: accept, audience: audience(flow))
        }
        do {
            let answer = try await flow.redeem(request.formFields)
            return ResponseRendering.secured(
                ServerResponse(
                    headers: ["Content-Type": "application/json"], body: answer.json.serialized(sortingKeys: true)))
        } catch {
            return ResponseRendering.error(error, accept: accept, audience: audience(flow))
        }
    }

    /// `/readyz`. The store's reason (e.g. "connect to unix:/run/redis.sock: Connection refused") names addresses
    /// and server replies: it is written to the log, and answered only on the operations listener, never on the
    /// browser-facing one.
    private func readiness(on listener: ListenerRole) async -> ServerResponse {
        if draining.load(ordering: .relaxed) {
            return ResponseRendering.secured(.text("draining\n", status: 503))
        }
        if let problem = await store.healthProblem() {
            log.log(.warning, "readyz", ["problem": problem])
            let reason = listener == .operations ? ": \(problem)" : ""
            return ResponseRendering.secured(.text("session store unavailable\(reason)\n", status: 503))
        }
        return ResponseRendering.secured(.text("ready\n"))
    }
}
