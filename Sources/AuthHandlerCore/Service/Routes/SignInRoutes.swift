import AuthHandlerHTTP

/// The sign-in itself: `/__/auth/handler`, the start (HTTP-API.md §3.1) and the provider's callback (§3.2).
struct SignInRoutes: RouteGroup {
    func addRoutes(to table: inout RouteTable) {
        // Every method: a POST is a form_post callback, and the others get a 405 naming GET (HEAD too: a link
        // scanner's HEAD must not start a sign-in or use up a pending one).
        table.add(nil, "/__/auth/handler", atOnce: Self.startAtOnce, Self.handler)
    }

    private static func handler(_ context: Route.Context) async -> ServerResponse {
        let request = context.request
        let flow = context.flow
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
                    accept: context.accept, audience: context.audience)
            }
        default:
            return ResponseRendering.error(
                APIError(.methodNotAllowed, "use GET (or POST for form_post)"), accept: context.accept,
                audience: context.audience)
        }
        // Who the request comes from, for the start rate limit that starts and callbacks share (HTTP-API.md §2.4).
        let client = ClientAddress.resolve(
            peer: request.remoteAddress, forwardedFor: request.headers.values(for: "X-Forwarded-For"),
            trusted: flow.settings.trustedProxies)
        guard SignInFlow.isCallback(fields) else {
            return await start(fields, client: client, context: context)
        }
        return await callback(fields, client: client, context: context)
    }

    /// A start that may wait on the provider (an OAuth 1.0a request token, an uncached discovery document).
    private static func start(_ fields: [URLFormField], client: String, context: Route.Context) async -> ServerResponse
    {
        if context.service.onceSignIn != nil {
            // --once started its one sign-in itself; its port takes nothing but that sign-in's callback.
            return ResponseRendering.error(
                APIError(.notFound, "this auth-handler --once listener only takes its own sign-in's callback"),
                accept: context.accept, audience: context.audience)
        }
        let outcome: Result<StartAnswer, APIError>
        do {
            outcome = .success(
                try await context.flow.start(
                    fields, client: client, cookieHeaders: context.request.headers.values(for: "Cookie"),
                    fetchMetadata: fetchMetadata(context.request)))
        } catch {
            outcome = .failure(error)
        }
        return startResponse(outcome, context: context)
    }

    /// The provider's callback: the redirect to the app (or the device's done page), or the refusal.
    private static func callback(_ fields: [URLFormField], client: String, context: Route.Context) async
        -> ServerResponse
    {
        let request = context.request
        // In --once the pending sign-in never left the process: it stands in for the browser's cookie.
        let cookies = context.service.onceSignIn.map { [$0.cookiePair] } ?? request.headers.values(for: "Cookie")
        let answer = await context.flow.callback(
            fields, cookieHeaders: cookies, formPost: request.method == "POST", client: client)
        var response: ServerResponse
        switch answer.outcome {
        case .redirect(let location): response = ResponseRendering.secured(.redirect(to: location, status: 303))
        case .refused(let error):
            response = ResponseRendering.error(error, accept: context.accept, audience: context.audience)
        }
        if let clear = answer.clearCookie { response.headers.add(name: "Set-Cookie", value: clear) }
        return response
    }

    /// A start (`GET /__/auth/handler` without a callback's parameters) answered on the listener's thread when its
    /// flow needs no waiting (``SignInFlow/startImmediately(_:cookieHeaders:fetchMetadata:)``); nil for every other
    /// request to the handler, which ``handler(_:)`` answers.
    private static func startAtOnce(_ context: Route.Context) -> ServerResponse? {
        let request = context.request
        guard request.method == "GET", context.service.onceSignIn == nil else { return nil }
        let fields = request.queryItems
        guard !SignInFlow.isCallback(fields),
            let outcome = context.flow.startImmediately(
                fields, cookieHeaders: request.headers.values(for: "Cookie"), fetchMetadata: fetchMetadata(request))
        else { return nil }
        return startResponse(outcome, context: context)
    }

    /// The `Sec-Fetch-*` headers a start is checked by (HTTP-API.md §3.1).
    static func fetchMetadata(_ request: ServerRequest) -> FetchMetadata {
        FetchMetadata(request)
    }

    /// A start's `302` to the provider with its cookies, or its refusal.
    static func startResponse(_ outcome: Result<StartAnswer, APIError>, context: Route.Context)
        -> ServerResponse
    {
        switch outcome {
        case .success(let answer):
            var response = ResponseRendering.secured(.redirect(to: answer.location, status: 302))
            for eviction in answer.evictions { response.headers.add(name: "Set-Cookie", value: eviction) }
            response.headers.add(name: "Set-Cookie", value: answer.setCookie)
            return response
        case .failure(let error):
            return ResponseRendering.error(error, accept: context.accept, audience: context.audience)
        }
    }
}

extension FetchMetadata {
    /// The `Sec-Fetch-*` headers of `request`, which a start (HTTP-API.md §3.1) and a device confirmation (§3.9) are
    /// checked by.
    init(_ request: ServerRequest) {
        self.init(
            mode: request.headers["Sec-Fetch-Mode"], destination: request.headers["Sec-Fetch-Dest"],
            site: request.headers["Sec-Fetch-Site"])
    }
}
