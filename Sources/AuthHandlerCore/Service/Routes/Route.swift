import AuthHandlerHTTP

/// One endpoint of the service: a method and an exact path, the listeners that serve it, and what answers it
/// (docs/ARCHITECTURE.md "Routes"). A ``RouteGroup`` registers its routes in a ``RouteTable``.
struct Route: Sendable {
    /// What a route's answer is given: the request, the flow the whole request runs on, the listener it came in on,
    /// and the service (for what outlives a reload: the store, the metrics, `--once`'s pending sign-in).
    struct Context: Sendable {
        let request: ServerRequest
        let flow: SignInFlow
        let listener: AuthHandlerService.ListenerRole
        let service: AuthHandlerService

        /// The request's `Accept` header, which chooses between a JSON and an HTML error (HTTP-API.md §3.5).
        var accept: String? { request.headers["Accept"] }

        /// Who the pages of this request are for.
        var audience: PageAudience { service.audience(flow) }
    }

    /// An answer that may wait (on a provider, the store, a backend).
    typealias Answer = @Sendable (Context) async -> ServerResponse
    /// An answer given on the listener's own thread, without the hop to a task; nil when this request must wait
    /// after all, and then ``Answer`` answers it.
    typealias AtOnce = @Sendable (Context) -> ServerResponse?

    /// The method, e.g. `GET`; nil for a route whose answer takes every method and refuses the ones it does not
    /// serve itself (its message then names the right one).
    let method: String?
    /// The exact path, as sent (no prefix match, no percent-decoding).
    let path: String
    /// The listeners that serve it.
    let listeners: Set<AuthHandlerService.ListenerRole>
    /// The `route` label of `auth_handler_request_seconds` (`/metrics`): the path, or `ops` for the operations
    /// endpoints.
    let metricsLabel: String
    let answer: Answer
    let atOnce: AtOnce?
}

/// A feature's routes, registered together (hummingbird's router controllers are the model): adding an endpoint is
/// one line in its group.
protocol RouteGroup {
    /// Adds this group's routes to `table`.
    func addRoutes(to table: inout RouteTable)
}
