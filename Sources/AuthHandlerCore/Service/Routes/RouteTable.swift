import AuthHandlerHTTP

/// Every route the service answers, looked up by exact path and method (docs/ARCHITECTURE.md "Routes"). Built from the
/// feature groups when the service is made and again on every reload, because whether a group serves depends on the
/// configuration (device sign-in) and on how the process runs (`--once`, `opsListen`).
struct RouteTable: Sendable {
    /// The routes of each path, in the order they were added.
    private var routes: [String: [Route]] = [:]
    /// What a path answers a method none of its routes serves: HTTP-API.md's `405` with the group's own message.
    private var otherMethods: [String: MethodRefusal] = [:]

    /// A path's `405`: the message, and who its HTML page speaks to (an app's user, or a terminal's for device
    /// sign-in; nil: whoever the service's pages speak to).
    struct MethodRefusal {
        let message: String
        let starter: PageAudience.Starter?
    }

    /// What a lookup found.
    enum Lookup {
        /// The route that answers.
        case route(Route)
        /// The path is served on this listener, but not with this method: `405`.
        case methodNotAllowed(MethodRefusal)
        /// Nothing is served at this path on this listener.
        case notFound
    }

    /// Adds a route for `method` (nil: every method, the answer refusing those it does not serve) at `path` on
    /// `listeners`. A path and method already taken keep their route: the first group to register one wins, so
    /// `--once`'s extra routes cannot replace HTTP-API.md's.
    mutating func add(
        _ method: String?, _ path: String, on listeners: Set<AuthHandlerService.ListenerRole> = [.main],
        metricsLabel: String? = nil, atOnce: Route.AtOnce? = nil, _ answer: @escaping Route.Answer
    ) {
        let route = Route(
            method: method, path: path, listeners: listeners, metricsLabel: metricsLabel ?? path, answer: answer,
            atOnce: atOnce)
        let taken = routes[path, default: []].contains {
            $0.method == method && !$0.listeners.isDisjoint(with: listeners)
        }
        guard !taken else { return }
        routes[path, default: []].append(route)
    }

    /// Sets the message of the `405` a path answers for a method none of its routes serves, and who its page speaks
    /// to when it is not the service's usual audience.
    mutating func refuseOtherMethods(at path: String, saying message: String, to starter: PageAudience.Starter? = nil) {
        otherMethods[path] = MethodRefusal(message: message, starter: starter)
    }

    /// The route for `method` at `path` on `listener`: a route of that method first, then one that takes every method.
    func lookup(method: String, path: String, on listener: AuthHandlerService.ListenerRole) -> Lookup {
        // Per request: one dictionary lookup and a walk over the path's few routes, with no array built.
        guard let candidates = routes[path], candidates.contains(where: { $0.listeners.contains(listener) }) else {
            return .notFound
        }
        let served = candidates.lazy.filter { $0.listeners.contains(listener) }
        if let exact = served.first(where: { $0.method == method }) { return .route(exact) }
        if let any = served.first(where: { $0.method == nil }) { return .route(any) }
        return .methodNotAllowed(
            otherMethods[path] ?? MethodRefusal(message: "this path does not take that method", starter: nil))
    }
}
