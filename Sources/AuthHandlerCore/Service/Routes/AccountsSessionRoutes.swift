import AuthHandlerAccounts
import AuthHandlerHTTP

/// Sessions and the keys apps verify ID tokens with (HTTP-API.md §3.10): refresh, sign-out, discovery, JWKS.
struct AccountsSessionRoutes: RouteGroup {
    /// The JWKS and discovery documents' `Cache-Control: max-age` (at most an hour, issue 25 §4; a rotation
    /// publishes the next key at least this long before it signs, docs/ACCOUNTS.md "ID tokens and keys").
    static let keysMaxAge = 3600

    func addRoutes(to table: inout RouteTable) {
        table.add("POST", "/__/auth/token") { await AccountsRoutes.handle($0, Self.token) }
        table.refuseOtherMethods(
            at: "/__/auth/token", saying: "use POST with a form body: grant_type=refresh_token&refresh_token=...")
        table.add("POST", "/__/auth/sign-out") { await AccountsRoutes.handle($0, Self.signOut) }
        table.refuseOtherMethods(at: "/__/auth/sign-out", saying: "use POST")
        table.add("GET", "/__/auth/.well-known/openid-configuration") { context in
            await AccountsRoutes.handle(context) { request throws(AccountsError) in
                Self.document(OpenIDConfiguration(settings: request.engine.settings.idToken).json)
            }
        }
        table.add("GET", "/__/auth/jwks.json") { context in
            await AccountsRoutes.handle(context) { request throws(AccountsError) in
                Self.document(PublishedKeySet(ring: request.engine.keys).json)
            }
        }
    }

    /// A public document apps and APIs cache: no tokens in it.
    static func document(_ value: JSONValue) -> ServerResponse {
        var response = ServerResponse.json(value)
        response.headers.set(name: "Cache-Control", value: "public, max-age=\(keysMaxAge)")
        return ResponseRendering.secured(response)
    }

    /// The answer of a sign-in: the redemption's `signIn` shape with the user's e-mail and name; in cookie mode the
    /// refresh token is only in the `HttpOnly` cookie, never in the body, and its session is bound to the cookie.
    static func signedIn(_ grant: AccountsEngine.Grant, _ request: AccountsRequest, cookieMode: Bool)
        async throws(AccountsError) -> ServerResponse
    {
        if cookieMode { try await request.engine.bindToCookie(refreshToken: grant.refreshToken.value.reveal()) }
        guard case .object(var members) = AccountsBackend.signIn(grant) else { return AccountsRequest.answer(.null) }
        members["email"] = grant.user.email.map(JSONValue.string) ?? .null
        members["displayName"] = grant.user.displayName.map(JSONValue.string) ?? .null
        guard cookieMode else { return AccountsRequest.answer(.object(members)) }
        members["refreshToken"] = nil
        return AccountsRequest.answer(
            .object(members),
            cookie: request.sessionCookieHeader(grant.refreshToken.value.reveal(), maxAge: request.cookieMaxAge))
    }

    /// `POST /__/auth/token` (RFC 6749 §6): `grant_type=refresh_token&refresh_token=...`, or `session=cookie` with the
    /// token in the session cookie. Errors are RFC 6749 §5.2's.
    static func token(_ request: AccountsRequest) async throws(AccountsError) -> ServerResponse {
        let fields = request.request.formFields
        for name in ["grant_type", "refresh_token", "session"] where fields.all(named: name).count > 1 {
            return oauthError("invalid_request", "\(name) is given more than once")
        }
        guard fields.first(named: "grant_type") == "refresh_token" else {
            return oauthError("unsupported_grant_type", "only grant_type=refresh_token is served here")
        }
        let cookieMode = fields.first(named: "session") == "cookie"
        let presented: String?
        if cookieMode {
            presented = try request.sessionCookieValue()
        } else {
            presented = fields.first(named: "refresh_token")
        }
        guard let presented, !presented.isEmpty else {
            return oauthError("invalid_request", "refresh_token is required")
        }
        let grant: AccountsEngine.Grant
        do {
            (grant, _) = try await request.engine.refresh(presented, fromCookie: cookieMode)
            request.backend.metrics.refresh(nil, revokedSession: false)
        } catch {
            request.backend.metrics.refresh(error, revokedSession: error.details["revoked"] == .bool(true))
            switch error.code {
            case .unavailable, .internalError: throw error
            default:
                var response = oauthError("invalid_grant", error.message)
                if cookieMode {
                    response.headers.add(name: "Set-Cookie", value: request.sessionCookieHeader(nil, maxAge: 0))
                }
                return response
            }
        }
        var members: [String: JSONValue] = [
            "id_token": .string(grant.idToken.token.reveal()), "token_type": .string("Bearer"),
            "expires_in": .integer(Int64(grant.idToken.expiresIn)), "user_id": .string(grant.user.localID.value),
        ]
        guard cookieMode else {
            members["refresh_token"] = .string(grant.refreshToken.value.reveal())
            return AccountsRequest.answer(.object(members))
        }
        return AccountsRequest.answer(
            .object(members),
            cookie: request.sessionCookieHeader(grant.refreshToken.value.reveal(), maxAge: request.cookieMaxAge))
    }

    /// RFC 6749 §5.2's error answer.
    static func oauthError(_ code: String, _ description: String) -> ServerResponse {
        AccountsRequest.answer(
            .object(["error": .string(code), "error_description": .string(description)]), status: 400)
    }

    /// `POST /__/auth/sign-out`: by `Authorization: Bearer`, by the refresh token (`refreshToken` in a JSON body, or
    /// `refresh_token` in a form), or by the session cookie (`session: "cookie"`); `scope` `local` (default), `others`
    /// or `global`, the last two only with a bearer token of a recent sign-in.
    static func signOut(_ request: AccountsRequest) async throws(AccountsError) -> ServerResponse {
        let form = request.request.headers["Content-Type"]?.lowercased().hasPrefix("application/x-www-form-urlencoded")
        let fields = request.request.formFields
        var scopeText: String?
        var refreshToken: String?
        var cookieMode = false
        if form == true {
            scopeText = fields.first(named: "scope")
            refreshToken = fields.first(named: "refresh_token")
            cookieMode = fields.first(named: "session") == "cookie"
        } else if !request.request.body.isEmpty {
            let body = try request.json(allowed: ["scope", "refreshToken", "session"])
            scopeText = try body.string("scope", optional: true, maximumBytes: 16)
            refreshToken = try body.string("refreshToken", optional: true, maximumBytes: 512)
            cookieMode = try AccountsPasswordRoutes.cookieMode(body, request)
        }
        guard let scope = AccountsEngine.SignOutScope(rawValue: scopeText ?? "local") else {
            throw AccountsError(.invalidRequest, "\"scope\" is local, others or global")
        }
        if cookieMode { refreshToken = try request.sessionCookieValue() }
        let clear = cookieMode ? request.sessionCookieHeader(nil, maxAge: 0) : nil
        if request.hasBearer {
            let caller = try await request.engine.authenticate(
                try request.bearer(), recency: scope == .local ? .any : .recent)
            try await request.engine.signOut(session: caller.session, user: caller.user, scope: scope)
            return AccountsRequest.answer(.object(["signedOut": .string(scope.rawValue)]), cookie: clear)
        }
        guard scope == .local else {
            throw AccountsError(
                .requiresRecentLogin, "signing out \(scope.rawValue) needs Authorization: Bearer with a recent sign-in")
        }
        guard let refreshToken, !refreshToken.isEmpty else {
            throw AccountsError(.invalidRequest, "send Authorization: Bearer, a refresh token, or session: cookie")
        }
        if let (session, user) = try await request.engine.sessionOf(refreshToken: refreshToken) {
            try await request.engine.signOut(session: session, user: user, scope: .local)
        }
        return AccountsRequest.answer(.object(["signedOut": .string("local")]), cookie: clear)
    }
}
