import AuthHandlerHTTP

/// Routes a command serves beside HTTP-API.md's (`--once` serves its done page, `/__/auth/done`), on the main
/// listener, every method. Added last, so they cannot replace a route of HTTP-API.md.
struct ExtraRoutes: RouteGroup {
    let routes: [String: AuthHandlerService.ExtraRoute]

    func addRoutes(to table: inout RouteTable) {
        for (path, route) in routes.sorted(by: { $0.key < $1.key }) {
            table.add(nil, path) { context in ResponseRendering.secured(await route(context.request, context.flow)) }
        }
    }
}
