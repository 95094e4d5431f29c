import AuthHandlerCore
import AuthHandlerHTTP
import Foundation

/// OAuth 1.0a `authorize` / `authenticate` (RFC 5849 §2.2): the user approves or denies a request token.
///
/// `GET` with a live `oauth_token` auto-approves when auto-approve is on and `screen_name` names a
/// configured user (`deny` denies), and otherwise shows the login page, which posts back here.
/// Approval redirects to the token's callback with `oauth_token` and `oauth_verifier`; denial with
/// `denied=TOKEN` and removes the token. An `oob` callback shows the verifier as a PIN instead.
extension FakeIdPRouter {
    func oauth1Authorize(_ request: ServerRequest, failure: FakeFailureKind?) async -> ServerResponse {
        let parameters: [URLFormField]
        switch request.method {
        case "GET": parameters = request.queryItems
        case "POST": parameters = request.formFields
        default: return Self.methodNotAllowed(request, allowed: "GET, POST")
        }
        do {
            return try await authorizeOAuth1RequestToken(request, parameters: parameters, failure: failure)
        } catch {
            return error.response(.oauth1Authorize)
        }
    }

    private func authorizeOAuth1RequestToken(
        _ request: ServerRequest, parameters: [URLFormField], failure: FakeFailureKind?
    ) async throws(FakeOAuth1Refusal) -> ServerResponse {
        guard let tokenValue = parameters.first(named: "oauth_token"), !tokenValue.isEmpty else {
            throw .malformed("token", "oauth_token is missing; send the request token from request_token")
        }
        guard let token = await state.requestToken(tokenValue) else {
            throw .unauthorized(
                "request-token",
                "oauth_token is not a live request token (unknown, expired, already exchanged or denied); "
                    + "start again at request_token")
        }
        guard token.verifier == nil else {
            throw .unauthorized(
                "request-token", "this request token was already authorized; exchange it at access_token")
        }
        let isPost = request.method == "POST"
        if case .oauthError = failure { return await deny(token, afterPost: isPost) }

        guard isPost else {
            let screenName = parameters.first(named: "screen_name")
            if state.configuration.autoApprove, let screenName {
                if screenName == FakeUser.denyingName { return await deny(token, afterPost: false) }
                if let user = state.configuration.user(named: screenName) {
                    return try await approve(token, as: user, afterPost: false)
                }
            }
            return .html(Self.oauth1LoginPage(action: request.path, token: token.token, hint: screenName))
        }

        switch parameters.first(named: "decision") {
        case "approve":
            let name = parameters.first(named: "user") ?? ""
            if name == FakeUser.denyingName { return await deny(token, afterPost: true) }
            guard let user = state.configuration.user(named: name) else {
                return .html(
                    Self.oauth1LoginPage(
                        action: request.path, token: token.token, hint: name,
                        error: "There is no user '\(name)' here. Type the name of a configured user."),
                    status: 401)
            }
            return try await approve(token, as: user, afterPost: true)
        case "deny":
            return await deny(token, afterPost: true)
        default:
            throw .malformed("decision", "decision must be approve or deny (the login page's buttons)")
        }
    }

    /// Binds a fresh verifier and `user` to the token and sends the browser to its callback (303 after a POST).
    private func approve(_ token: FakeRequestToken, as user: FakeUser, afterPost: Bool)
        async throws(FakeOAuth1Refusal) -> ServerResponse
    {
        let issued: String?
        do {
            issued = try await state.approveRequestToken(token.token, userID: user.id)
        } catch {
            throw .internalFailure(error)
        }
        guard let verifier = issued else {
            throw .unauthorized(
                "request-token", "the request token expired or was authorized meanwhile; start again at request_token")
        }
        if token.callback == Self.outOfBandCallback {
            return .html(
                Self.oauth1ResultPage(
                    title: "Enter this PIN in the application",
                    body: "<p>PIN: <code id=\"oauth_verifier\">\(LoginPage.escape(verifier))</code></p>"))
        }
        let location = Self.callbackURL(
            token.callback,
            adding: [
                URLFormField(name: "oauth_token", value: token.token),
                URLFormField(name: "oauth_verifier", value: verifier),
            ])
        return .redirect(to: location, status: afterPost ? 303 : 302)
    }

    /// Removes the token and sends the browser to its callback with `denied=TOKEN`, as Twitter does.
    private func deny(_ token: FakeRequestToken, afterPost: Bool) async -> ServerResponse {
        await state.denyRequestToken(token.token)
        if token.callback == Self.outOfBandCallback {
            return .html(
                Self.oauth1ResultPage(
                    title: "Access denied", body: "<p>You denied the application access; it received no PIN.</p>"))
        }
        let location = Self.callbackURL(token.callback, adding: [URLFormField(name: "denied", value: token.token)])
        return .redirect(to: location, status: afterPost ? 303 : 302)
    }

    /// `callback` with `fields` added to its query, an existing query and fragment kept.
    static func callbackURL(_ callback: String, adding fields: [URLFormField]) -> String {
        var base = Substring(callback)
        var fragment: Substring = ""
        if let hash = base.firstIndex(of: "#") {
            fragment = base[hash...]
            base = base[..<hash]
        }
        let separator: String
        if !base.contains("?") {
            separator = "?"
        } else if base.hasSuffix("?") || base.hasSuffix("&") {
            separator = ""
        } else {
            separator = "&"
        }
        return base + separator + FormURLEncoding.encode(fields) + fragment
    }

    /// The login page for a request token, with an error paragraph above the form when `error` is set.
    static func oauth1LoginPage(action: String, token: String, hint: String?, error: String? = nil) -> String {
        let page = LoginPage.render(
            title: "Sign in to the fake IdP to authorize an application (OAuth 1.0a)", action: action,
            hidden: [(name: "oauth_token", value: token)], hint: hint)
        guard let error, let form = page.range(of: "<form ") else { return page }
        return page.replacingCharacters(
            in: form, with: "<p id=\"error\" role=\"alert\">\(LoginPage.escape(error))</p>\n  <form ")
    }

    /// A plain result page (the `oob` PIN, or a denial); `body` is HTML the caller has escaped.
    static func oauth1ResultPage(title: String, body: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>\(LoginPage.escape(title))</title></head>
        <body>
          <h1>\(LoginPage.escape(title))</h1>
          \(body)
        </body></html>
        """
    }
}
