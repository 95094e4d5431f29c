import AuthHandlerCore
import AuthHandlerHTTP
import AuthHandlerProtocols
import Foundation

/// `GET|POST /oidc/authorize`: the authorization endpoint (RFC 6749 §4.1.1, OIDC Core §3.1.2, RFC 7636, RFC 9207).
extension FakeIdPRouter {
    /// The path the login page posts back to.
    static let oidcAuthorizePath = "/oidc/authorize"

    func oidcAuthorize(_ request: ServerRequest, failure: FakeFailureKind?) async -> ServerResponse {
        guard request.method == "GET" || request.method == "POST" else {
            return Self.methodNotAllowed(request, allowed: "GET, POST")
        }
        let parameters = FakeOIDCParameters(fields: request.method == "POST" ? request.formFields : request.queryItems)
        let configuration = state.configuration

        // RFC 6749 §4.1.2.1: with an unknown client or redirect URI, tell the user and never redirect.
        guard let clientID = parameters["client_id"], !parameters.isRepeated("client_id") else {
            return Self.oidcAuthorizeErrorPage("The request has no client_id, or more than one.")
        }
        guard let client = configuration.oauth2Client(id: clientID) else {
            return Self.oidcAuthorizeErrorPage("The client_id \"\(clientID)\" is not registered with this fake IdP.")
        }
        guard let redirectURI = parameters["redirect_uri"], !parameters.isRepeated("redirect_uri") else {
            return Self.oidcAuthorizeErrorPage("The request has no redirect_uri, or more than one.")
        }
        guard configuration.acceptsRedirectURI(redirectURI) else {
            return Self.oidcAuthorizeErrorPage(
                "The redirect_uri \"\(redirectURI)\" is not registered for this client; it must match exactly.")
        }

        var reply = FakeOIDCAuthorizationResponse(
            redirectURI: redirectURI, mode: .query, state: parameters["state"],
            issuer: failure == .wrongIssuer ? FakeIDTokenIssuer.wrongIssuer : issuer,
            redirectStatus: request.method == "POST" ? 303 : 302)
        if let responseMode = parameters["response_mode"] {
            guard let mode = FakeOIDCAuthorizationResponse.Mode(rawValue: responseMode) else {
                return reply.error(
                    FakeOIDCError(
                        .invalidRequest, "response_mode \"\(responseMode)\" is not supported; use query or form_post"))
            }
            reply.mode = mode
        }
        if case .oauthError(let code, let description) = failure {
            return reply.error(FakeOIDCError(code: code, description: description ?? "queued failure"))
        }

        let authorization: FakeAuthorizationCode
        do {
            authorization = try Self.oidcValidateAuthorization(parameters, client: client, redirectURI: redirectURI)
        } catch {
            return reply.error(error)
        }

        let user: FakeUser
        switch Self.oidcAuthorizationDecision(
            parameters, isPost: request.method == "POST", configuration: configuration)
        {
        case .approve(let approved):
            user = approved
        case .deny(let reason):
            return reply.error(FakeOIDCError(.accessDenied, reason))
        case .refuse(let error):
            return reply.error(error)
        case .showLoginPage(let title):
            let hidden = parameters.fields.filter { $0.name != "user" && $0.name != "decision" }
            var page = ServerResponse.html(
                LoginPage.render(
                    title: title, action: Self.oidcAuthorizePath, hidden: hidden.map { ($0.name, $0.value) },
                    hint: parameters["user"] ?? parameters["login_hint"]))
            page.headers.set(name: "Cache-Control", value: "no-store")
            return page
        }

        var code = authorization
        code.grant.userID = user.id
        code.issuedAt = await state.now()
        do {
            return reply.code(try await state.issueCode(code))
        } catch {
            return reply.error(FakeOIDCError(.serverError, "cannot issue a code: \(error)"))
        }
    }

    /// What the user (or auto-approve) decided about an authorization request.
    enum OIDCAuthorizationDecision {
        case approve(FakeUser)
        case deny(String)
        case refuse(FakeOIDCError)
        case showLoginPage(title: String)
    }

    /// Checks every parameter after `client_id` and `redirect_uri`; returns the code to issue, without its user.
    static func oidcValidateAuthorization(
        _ parameters: FakeOIDCParameters, client: FakeIdPConfiguration.OAuth2Client, redirectURI: String
    ) throws(FakeOIDCError) -> FakeAuthorizationCode {
        if let repeated = parameters.repeatedNames.first {
            throw FakeOIDCError(.invalidRequest, "the parameter \(repeated) is sent more than once (RFC 6749 §3.1)")
        }
        if parameters["request"] != nil {
            throw FakeOIDCError(code: "request_not_supported", description: "request objects are not supported")
        }
        if parameters["request_uri"] != nil {
            throw FakeOIDCError(code: "request_uri_not_supported", description: "request_uri is not supported")
        }
        guard let responseType = parameters["response_type"] else {
            throw FakeOIDCError(.invalidRequest, "response_type is missing; send response_type=code")
        }
        guard responseType == "code" else {
            throw FakeOIDCError(
                code: "unsupported_response_type",
                description: "response_type \"\(responseType)\" is not supported; only code is")
        }
        let scope = parameters["scope"] ?? ""
        if !scope.isEmpty, FakeOIDCParameters.scopeTokens(scope) == nil {
            throw FakeOIDCError(.invalidScope, "scope must be scope tokens separated by single spaces (RFC 6749 §3.3)")
        }
        let challenge = parameters["code_challenge"]
        if let method = parameters["code_challenge_method"] {
            guard method == PKCE.challengeMethod else {
                throw FakeOIDCError(.invalidRequest, "code_challenge_method \"\(method)\" is refused; use S256")
            }
            guard challenge != nil else {
                throw FakeOIDCError(.invalidRequest, "code_challenge_method is sent without code_challenge")
            }
        }
        if let challenge {
            // RFC 7636 §4.3: a challenge without a method means plain, which this IdP refuses.
            guard parameters["code_challenge_method"] != nil else {
                throw FakeOIDCError(.invalidRequest, "code_challenge_method is missing, which means plain; send S256")
            }
            guard PKCE.isValidVerifier(challenge) else {
                throw FakeOIDCError(
                    .invalidRequest, "code_challenge must be 43-128 characters of [A-Za-z0-9-._~] (RFC 7636 §4.2)")
            }
        } else if client.secret == nil {
            throw FakeOIDCError(
                .invalidRequest, "a public client must send code_challenge and code_challenge_method=S256 (PKCE)")
        }
        return FakeAuthorizationCode(
            grant: FakeOAuth2Grant(clientID: client.id, scope: scope, userID: ""), redirectURI: redirectURI,
            nonce: parameters["nonce"], codeChallenge: challenge, issuedAt: Date(timeIntervalSince1970: 0))
    }

    /// The login page's answer (a POST with `decision`), else auto-approve by `login_hint`, else the login page.
    static func oidcAuthorizationDecision(
        _ parameters: FakeOIDCParameters, isPost: Bool, configuration: FakeIdPConfiguration
    ) -> OIDCAuthorizationDecision {
        let title = "Sign in with the fake IdP"
        if isPost, let decision = parameters["decision"] {
            switch decision {
            case "deny":
                return .deny("the user pressed Deny")
            case "approve":
                let name = parameters["user"] ?? ""
                if name == FakeUser.denyingName { return .deny("the user signed in as \(FakeUser.denyingName)") }
                guard let user = configuration.user(named: name) else {
                    return .showLoginPage(title: "No user named \"\(name)\". \(title)")
                }
                return .approve(user)
            default:
                return .refuse(FakeOIDCError(.invalidRequest, "decision must be approve or deny"))
            }
        }
        if configuration.autoApprove, let hint = parameters["login_hint"] {
            if hint == FakeUser.denyingName { return .deny("login_hint=\(FakeUser.denyingName) denies") }
            if let user = configuration.user(named: hint) { return .approve(user) }
        }
        let prompts = (parameters["prompt"] ?? "").split(separator: " ")
        if prompts.contains("none") {
            return .refuse(
                FakeOIDCError(code: "login_required", description: "prompt=none, and nothing signs the user in"))
        }
        return .showLoginPage(title: title)
    }

    /// The page for a request that cannot be sent back to the client: 400, never a redirect.
    static func oidcAuthorizeErrorPage(_ message: String) -> ServerResponse {
        var response = ServerResponse.html(
            """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>Sign-in request refused</title></head>
            <body><h1>Sign-in request refused</h1>
            <p id="error">\(LoginPage.escape(message))</p>
            <p>auth-handler fake IdP: the browser is not sent back to an unverified client.</p>
            </body></html>
            """, status: 400)
        response.headers.set(name: "Cache-Control", value: "no-store")
        return response
    }
}
