import AuthHandlerHTTP

/// Routes a command serves beside HTTP-API.md's (`--once` serves its done page, `/__/auth/done`; `demo` its sample
/// app page, HTTP-API.md §1.5), on the main listener, every method. Added last, so they cannot replace a route of
/// HTTP-API.md. Their answers get §3.5's headers, except that a route's own `Content-Security-Policy` is kept: a
/// page of the command's own that runs a script (the demo's) names the sources it needs, as `/__/auth/popup` does.
struct ExtraRoutes: RouteGroup {
    let routes: [String: AuthHandlerService.ExtraRoute]

    func addRoutes(to table: inout RouteTable) {
        for (path, route) in routes.sorted(by: { $0.key < $1.key }) {
            table.add(nil, path) { context in
                let answer = await route(context.request, context.flow)
                var response = ResponseRendering.secured(answer)
                if let policy = answer.headers["Content-Security-Policy"] {
                    response.headers.set(name: "Content-Security-Policy", value: policy)
                }
                return response
            }
        }
    }
}
