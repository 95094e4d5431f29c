import AuthHandlerAccounts
import AuthHandlerHTTP

/// The accounts endpoints (HTTP-API.md §3.10), served when the backend is `accounts`: each group a file of its own.
struct AccountsRoutes: RouteGroup {
    func addRoutes(to table: inout RouteTable) {
        let groups: [any RouteGroup] = [
            AccountsPasswordRoutes(), AccountsSessionRoutes(), AccountsUserRoutes(), AccountsActionRoutes(),
            AccountsIntrospectionRoutes(),
        ]
        for group in groups { group.addRoutes(to: &table) }
    }

    /// The answer of an accounts path when the backend is another (a reload may change it under a route table).
    static func notServed(_ context: Route.Context) -> ServerResponse {
        ResponseRendering.error(
            APIError(.notFound, "the accounts backend is not configured"), accept: context.accept,
            audience: context.audience)
    }

    /// Runs `answer` with the request's accounts view, its refusals as §3.5 JSON errors.
    static func handle(
        _ context: Route.Context, _ answer: (AccountsRequest) async throws(AccountsError) -> ServerResponse
    ) async -> ServerResponse {
        guard let backend = context.flow.backend as? AccountsBackend else { return AccountsRoutes.notServed(context) }
        do {
            return try await answer(AccountsRequest(context: context, backend: backend))
        } catch {
            if error.code == .tooManyRequests { backend.metrics.throttled(endpoint: context.request.path) }
            return AccountsRequest.failure(error, audience: context.audience)
        }
    }
}

/// E-mail and password sign-up and sign-in (HTTP-API.md §3.10).
struct AccountsPasswordRoutes: RouteGroup {
    func addRoutes(to table: inout RouteTable) {
        table.add("POST", "/__/auth/password/sign-up") { await AccountsRoutes.handle($0, Self.signUp) }
        table.add("POST", "/__/auth/password/sign-in") { await AccountsRoutes.handle($0, Self.signIn) }
        for path in ["/__/auth/password/sign-up", "/__/auth/password/sign-in"] {
            table.refuseOtherMethods(at: path, saying: "use POST with a JSON body")
        }
    }

    static func signUp(_ request: AccountsRequest) async throws(AccountsError) -> ServerResponse {
        let body = try request.json(allowed: ["email", "password", "displayName", "session"])
        let cookieMode = try Self.cookieMode(body, request)
        let email = try body.requiredString("email", maximumBytes: 1024)
        let password = try body.requiredString("password", maximumBytes: NormalizedPassword.maximumInputBytes)
        let displayName = try body.string("displayName", optional: true, maximumBytes: 1024)
        let grant = try await AccountsMetrics.counted(request.backend.metrics.signUp) {
            () async throws(AccountsError) in
            try await request.engine.signUp(
                email: email, password: password, displayName: displayName, client: request.client)
        }
        return try await AccountsSessionRoutes.signedIn(grant, request, cookieMode: cookieMode)
    }

    static func signIn(_ request: AccountsRequest) async throws(AccountsError) -> ServerResponse {
        let body = try request.json(allowed: ["email", "password", "session"])
        let cookieMode = try Self.cookieMode(body, request)
        let deviceCookie = SignInCookie.values(
            named: DeviceCookie.name, in: request.request.headers.values(for: "Cookie")
        ).first
        let email = try body.requiredString("email", maximumBytes: 1024)
        let password = try body.requiredString("password", maximumBytes: NormalizedPassword.maximumInputBytes)
        let signedIn = try await AccountsMetrics.counted({ request.backend.metrics.signIn(method: "password", $0) }) {
            () async throws(AccountsError) in
            try await request.engine.signIn(
                email: email, password: password, client: request.client, deviceCookie: deviceCookie)
        }
        var response = try await AccountsSessionRoutes.signedIn(signedIn.grant, request, cookieMode: cookieMode)
        let device = request.engine.deviceCookies.setCookie(signedIn.deviceCookie, secure: request.secureCookies)
        response.headers.add(name: "Set-Cookie", value: device.fieldValue)
        return response
    }

    /// Whether the body asks for `session: "cookie"` (then the same-origin checks apply); any other value is refused.
    static func cookieMode(_ body: JSONRequestBody, _ request: AccountsRequest) throws(AccountsError) -> Bool {
        guard let session = try body.string("session", optional: true, maximumBytes: 16) else { return false }
        guard session == "cookie" else {
            throw AccountsError(.invalidRequest, "\"session\" may only be \"cookie\"")
        }
        try request.requireSameOriginScript()
        return true
    }
}
