import AuthHandlerAccounts
import AuthHandlerHTTP
import Foundation

/// What every accounts endpoint reads of a request (HTTP-API.md §3.10): the engine, the client, the body, the bearer
/// token and the session cookie, with the checks that keep a cross-site page out.
struct AccountsRequest {
    /// The session cookie's name: the refresh token of a browser that asked for `session: cookie`.
    static let sessionCookie = "auth_handler_session"
    /// The cookie's path: every endpoint that reads it, nothing else on the origin.
    static let cookiePath = "/__/auth/"
    /// The header a cross-site form cannot send, which every request that sets, reads or clears the cookie needs.
    static let csrfHeader = "X-Auth-Handler"

    let context: Route.Context
    let backend: AccountsBackend
    var engine: AccountsEngine { backend.engine }
    var request: ServerRequest { context.request }

    /// The client the hashing budget and the guessing throttle count (`trustedProxies` as for `startRateLimit`).
    var client: ClientKey {
        ClientKey(
            resolved: ClientAddress.resolve(
                peer: request.remoteAddress, forwardedFor: request.headers.values(for: "X-Forwarded-For"),
                trusted: context.flow.settings.trustedProxies))
    }

    /// Whether the session cookie gets `Secure` (a https `publicURL`).
    var secureCookies: Bool { context.flow.settings.redirectURI.hasPrefix("https://") }

    /// The JSON body, after checking `Content-Type: application/json`.
    func json(allowed: [String]) throws(AccountsError) -> JSONRequestBody {
        let type = request.headers["Content-Type"]?.split(separator: ";").first?
            .trimmingCharacters(in: .whitespaces).lowercased()
        guard type == "application/json" else {
            throw AccountsError(.invalidRequest, "send the body as JSON with Content-Type: application/json")
        }
        return try JSONRequestBody(request.body, allowed: allowed)
    }

    /// The bearer token of `Authorization`, or `401 invalid-id-token`.
    func bearer() throws(AccountsError) -> String {
        guard let field = request.headers["Authorization"], field.count > 7,
            field.prefix(7).lowercased() == "bearer "
        else {
            throw AccountsError(.invalidIDToken, "send the user's ID token as Authorization: Bearer <token>")
        }
        return String(field.dropFirst(7)).trimmingCharacters(in: .whitespaces)
    }

    /// Whether an `Authorization: Bearer` is present.
    var hasBearer: Bool { request.headers["Authorization"] != nil }

    /// Checks that a request that sets, reads or clears the session cookie comes from the origin's own script:
    /// `X-Auth-Handler: 1` (which a cross-site form cannot send and a cross-site `fetch` cannot without a CORS
    /// preflight this server never answers) and the page's origin as the browser states it: `Sec-Fetch-Site:
    /// same-origin`, or, from a browser that sends no Fetch Metadata, an `Origin` equal to `publicURL`'s (the same
    /// rule as the action page's, ``AccountsActionRoutes/requireSameOrigin(_:saying:)``). A client that is not a
    /// browser sends neither and passes on the header alone.
    func requireSameOriginScript() throws(AccountsError) {
        guard request.headers[Self.csrfHeader] == "1" else {
            throw AccountsError(
                .invalidRequest, "the session cookie is only used with the header \(Self.csrfHeader): 1")
        }
        try AccountsActionRoutes.requireSameOrigin(
            context, saying: "the session cookie is only used by this origin's own pages")
    }

    /// The session cookie's value, after the same-origin check; nil when there is none; refused when there are two
    /// (another page of the site may have planted one: cookie tossing).
    func sessionCookieValue() throws(AccountsError) -> String? {
        try requireSameOriginScript()
        let values = SignInCookie.values(named: Self.sessionCookie, in: request.headers.values(for: "Cookie"))
        guard values.count <= 1 else {
            throw AccountsError(.invalidRequest, "the request carries two session cookies; sign in again")
        }
        return values.first
    }

    /// The `Set-Cookie` value that keeps `refreshToken` in the browser (nil: clears it).
    func sessionCookieHeader(_ refreshToken: String?, maxAge: Int) -> String {
        var parts = ["\(Self.sessionCookie)=\(refreshToken ?? "")", "Path=\(Self.cookiePath)"]
        parts.append("Max-Age=\(refreshToken == nil ? 0 : maxAge)")
        parts.append("HttpOnly")
        if secureCookies { parts.append("Secure") }
        parts.append("SameSite=Strict")
        return parts.joined(separator: "; ")
    }

    /// The session cookie's lifetime: the absolute session limit.
    var cookieMaxAge: Int { Int(engine.settings.refreshAbsolute) }

    /// A JSON answer with the security headers and `Cache-Control: no-store` (it may hold tokens, RFC 6749 §5.1).
    static func answer(_ value: JSONValue, status: Int = 200, cookie: String? = nil) -> ServerResponse {
        var response = ServerResponse.json(value, status: status)
        response.headers.set(name: "Cache-Control", value: "no-store")
        response.headers.set(name: "Pragma", value: "no-cache")
        if let cookie { response.headers.add(name: "Set-Cookie", value: cookie) }
        return ResponseRendering.secured(response)
    }

    /// An accounts error as §3.5's JSON error object, whatever the request's `Accept` (these are API endpoints).
    static func failure(_ error: AccountsError, audience: PageAudience) -> ServerResponse {
        var response = ResponseRendering.error(APIError(error), accept: "application/json", audience: audience)
        response.headers.set(name: "Cache-Control", value: "no-store")
        return response
    }
}
