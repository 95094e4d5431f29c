import AuthHandlerHTTP

/// The browser module and its popup: `/__/auth/client.js`, `/__/auth/popup`, `/__/auth/popup.js` (HTTP-API.md §3.8),
/// static bytes that need no flow.
struct ClientModuleRoutes: RouteGroup {
    func addRoutes(to table: inout RouteTable) {
        // Every method: `BrowserClient` answers GET and HEAD and refuses the rest itself.
        for path in BrowserClient.paths.sorted() { table.add(nil, path, Self.file) }
    }

    private static func file(_ context: Route.Context) async -> ServerResponse {
        switch BrowserClient.response(context.request) {
        case .success(let content): content
        case .failure(let error): ResponseRendering.error(error, accept: context.accept, audience: context.audience)
        }
    }
}
