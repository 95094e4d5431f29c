import AuthHandlerHTTP

/// Redeeming a result: `POST /__/auth/result` (HTTP-API.md §3.3).
struct RedemptionRoutes: RouteGroup {
    func addRoutes(to table: inout RouteTable) {
        table.add("POST", "/__/auth/result", Self.result)
        table.refuseOtherMethods(
            at: "/__/auth/result", saying: "redeem with POST and a form body: code=...&verifier=...")
    }

    private static func result(_ context: Route.Context) async -> ServerResponse {
        do {
            let answer = try await context.flow.redeem(context.request.formFields)
            return ResponseRendering.secured(
                ServerResponse(
                    headers: ["Content-Type": "application/json"], body: answer.json.serialized(sortingKeys: true)))
        } catch {
            return ResponseRendering.error(error, accept: context.accept, audience: context.audience)
        }
    }
}
