import AuthHandlerAccounts
import AuthHandlerHTTP

/// Redeeming a result: `POST /__/auth/result` (HTTP-API.md §3.3).
struct RedemptionRoutes: RouteGroup {
    func addRoutes(to table: inout RouteTable) {
        table.add("POST", "/__/auth/result", Self.result)
        table.refuseOtherMethods(
            at: "/__/auth/result", saying: "redeem with POST and a form body: code=...&verifier=...")
    }

    private static func result(_ context: Route.Context) async -> ServerResponse {
        let fields = context.request.formFields
        // With the accounts backend, `session=cookie` keeps the refresh token in an HttpOnly cookie (HTTP-API.md
        // §3.10): only this origin's own script may ask, and the body then never carries it.
        let accounts = context.flow.backend as? AccountsBackend
        let cookieMode = accounts != nil && fields.first(named: "session") == "cookie"
        if let accounts, cookieMode {
            do {
                try AccountsRequest(context: context, backend: accounts).requireSameOriginScript()
            } catch {
                return AccountsRequest.failure(error, audience: context.audience)
            }
        }
        do {
            var answer = try await context.flow.redeem(fields)
            var cookie: String?
            if let accounts, cookieMode, case .object(var signIn)? = answer.signIn,
                case .string(let refreshToken)? = signIn["refreshToken"]
            {
                let request = AccountsRequest(context: context, backend: accounts)
                do {
                    try await accounts.engine.bindToCookie(refreshToken: refreshToken)
                } catch {
                    return AccountsRequest.failure(error, audience: context.audience)
                }
                cookie = request.sessionCookieHeader(refreshToken, maxAge: request.cookieMaxAge)
                signIn["refreshToken"] = nil
                answer.signIn = .object(signIn)
            }
            var response = ServerResponse(
                headers: ["Content-Type": "application/json"], body: answer.json.serialized(sortingKeys: true))
            if accounts != nil { response.headers.set(name: "Cache-Control", value: "no-store") }
            if let cookie { response.headers.add(name: "Set-Cookie", value: cookie) }
            return ResponseRendering.secured(response)
        } catch {
            return ResponseRendering.error(error, accept: context.accept, audience: context.audience)
        }
    }
}
