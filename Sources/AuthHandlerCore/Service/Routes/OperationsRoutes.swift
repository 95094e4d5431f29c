import AuthHandlerHTTP

/// `/healthz`, `/readyz` and `/metrics` (HTTP-API.md §3.4): on the operations listener, and on the main one unless
/// `opsListen` sets them apart.
struct OperationsRoutes: RouteGroup {
    /// Whether `opsListen` serves them alone.
    let apart: Bool

    func addRoutes(to table: inout RouteTable) {
        let listeners: Set<AuthHandlerService.ListenerRole> = apart ? [.operations] : [.main, .operations]
        table.add(nil, "/healthz", on: listeners, metricsLabel: "ops", atOnce: { _ in Self.health() }) { _ in
            Self.health()
        }
        table.add(nil, "/readyz", on: listeners, metricsLabel: "ops", Self.readiness)
        table.add(nil, "/metrics", on: listeners, metricsLabel: "ops", atOnce: Self.metrics) { Self.metrics($0) }
    }

    private static func health() -> ServerResponse {
        ResponseRendering.secured(.text("ok\n"))
    }

    private static func metrics(_ context: Route.Context) -> ServerResponse {
        var response = ServerResponse.text(context.service.metrics.render())
        response.headers.set(name: "Content-Type", value: "text/plain; version=0.0.4; charset=utf-8")
        return ResponseRendering.secured(response)
    }

    /// `/readyz`. The store's reason (e.g. "connect to unix:/run/redis.sock: Connection refused") names addresses
    /// and server replies: it is written to the log, and answered only on the operations listener, never on the
    /// browser-facing one.
    private static func readiness(_ context: Route.Context) async -> ServerResponse {
        let service = context.service
        if service.isDraining {
            return ResponseRendering.secured(.text("draining\n", status: 503))
        }
        if let problem = await service.store.healthProblem() {
            service.log.log(.warning, "readyz", ["problem": problem])
            let reason = context.listener == .operations ? ": \(problem)" : ""
            return ResponseRendering.secured(.text("session store unavailable\(reason)\n", status: 503))
        }
        // The accounts' database (PostgreSQL): without it no sign-up, sign-in or refresh can be answered.
        if let accounts = service.flow.backend as? AccountsBackend,
            let problem = await accounts.engine.store.healthProblem()
        {
            service.log.log(.warning, "readyz", ["problem": problem])
            let reason = context.listener == .operations ? ": \(problem)" : ""
            return ResponseRendering.secured(.text("accounts database unavailable\(reason)\n", status: 503))
        }
        return ResponseRendering.secured(.text("ready\n"))
    }
}
