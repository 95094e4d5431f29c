import AuthHandlerAccounts
import AuthHandlerHTTP
import Foundation

/// The e-mail actions (HTTP-API.md §3.10): the requests that mail a link, the signed-in password change and
/// reauthentication, and `/__/auth/action`, the page the links open.
struct AccountsActionRoutes: RouteGroup {
    static let actionPath = "/__/auth/action"

    func addRoutes(to table: inout RouteTable) {
        let endpoints: [(String, @Sendable (AccountsRequest) async throws(AccountsError) -> ServerResponse)] = [
            ("/__/auth/password/reset", Self.reset), ("/__/auth/user/password", Self.changePassword),
            ("/__/auth/password/reauth", Self.reauthenticate), ("/__/auth/user/email", Self.changeEmail),
            ("/__/auth/user/verify-email", Self.verifyEmail),
        ]
        for (path, answer) in endpoints {
            table.add("POST", path) { await AccountsRoutes.handle($0, answer) }
            table.refuseOtherMethods(at: path, saying: "use POST with a JSON body")
        }
        table.add("GET", Self.actionPath) { await Self.page($0) }
        table.add("POST", Self.actionPath) { await Self.act($0) }
        table.refuseOtherMethods(
            at: Self.actionPath, saying: "open the link from the e-mail (GET); its page's button posts the form")
    }

    // MARK: Requests that mail a link

    /// `POST /__/auth/password/reset` `{email, continueUrl?}`: always `200 {}`, answered before the address is looked
    /// up; the lookup and the mail run detached, so neither the answer nor its time tells whether it has an account.
    static func reset(_ request: AccountsRequest) async throws(AccountsError) -> ServerResponse {
        let body = try request.json(allowed: ["email", "continueUrl"])
        try request.engine.requirePasswords()
        let mail = try mailer(request)
        let email = try AccountsEngine.email(try body.requiredString("email", maximumBytes: 1024))
        resetDetached(
            email: email.given, continueURL: try continueURL(body, request), engine: request.engine, mail: mail,
            log: request.context.service.log)
        return AccountsRequest.answer(.object([:]))
    }

    /// Looks `email` up and mails its reset link in a task of its own, after the answer (here and the picker's reset
    /// form): the answer never waits for the database. A failure is logged, never the address; the user may ask
    /// again.
    static func resetDetached(
        email: String, continueURL: String?, engine: AccountsEngine, mail: AccountsMail, log: EventLog
    ) {
        Task.detached {
            do throws(AccountsError) {
                _ = try await engine.requestPasswordReset(email: email, continueURL: continueURL, mail: mail)
            } catch {
                log.log(.warning, "accounts.reset", ["error": error.description])
            }
        }
    }

    /// `POST /__/auth/user/email` `{email, continueUrl?}` (Bearer, a recent sign-in, a verified address): mails the
    /// new address a link that makes the change when followed.
    static func changeEmail(_ request: AccountsRequest) async throws(AccountsError) -> ServerResponse {
        let body = try request.json(allowed: ["email", "continueUrl"])
        let mail = try mailer(request)
        let caller = try await request.engine.authenticate(try request.bearer(), recency: .recent)
        let sent = try await request.engine.requestEmailChange(
            caller, to: try body.requiredString("email", maximumBytes: 1024),
            continueURL: try continueURL(body, request), mail: mail)
        return AccountsRequest.answer(.object(["sent": .bool(sent)]))
    }

    /// `POST /__/auth/user/verify-email` (Bearer), with an optional JSON body `{continueUrl}`: mails the stored
    /// address a verification link; `sent` is false when it is verified already or over its limit of mails.
    static func verifyEmail(_ request: AccountsRequest) async throws(AccountsError) -> ServerResponse {
        let body = request.request.body.isEmpty ? nil : try request.json(allowed: ["continueUrl"])
        let mail = try mailer(request)
        let caller = try await request.engine.authenticate(try request.bearer())
        let continueURL = try body.flatMap { body throws(AccountsError) in try Self.continueURL(body, request) }
        let sent = try await request.engine.requestVerification(caller, continueURL: continueURL, mail: mail)
        return AccountsRequest.answer(.object(["sent": .bool(sent)]))
    }

    // MARK: Signed-in password operations

    /// `POST /__/auth/user/password` `{password, session?}` (Bearer, a recent sign-in): every session ends, and the
    /// caller gets a new one, answered as a sign-in is (in cookie mode, its refresh token in the session cookie).
    static func changePassword(_ request: AccountsRequest) async throws(AccountsError) -> ServerResponse {
        let body = try request.json(allowed: ["password", "session"])
        let cookieMode = try AccountsPasswordRoutes.cookieMode(body, request)
        let password = try body.requiredString("password", maximumBytes: NormalizedPassword.maximumInputBytes)
        let caller = try await request.engine.authenticate(try request.bearer(), recency: .recent)
        let grant = try await request.engine.changePassword(caller, to: password, client: request.client)
        return try await AccountsSessionRoutes.signedIn(grant, request, cookieMode: cookieMode)
    }

    /// `POST /__/auth/password/reauth` `{password}` (Bearer): the session's `auth_time` becomes now; answers a fresh
    /// ID token.
    static func reauthenticate(_ request: AccountsRequest) async throws(AccountsError) -> ServerResponse {
        let body = try request.json(allowed: ["password"])
        let password = try body.requiredString("password", maximumBytes: NormalizedPassword.maximumInputBytes)
        let caller = try await request.engine.authenticate(try request.bearer())
        let (user, idToken) = try await request.engine.reauthenticate(
            caller, password: password, client: request.client)
        return AccountsRequest.answer(
            .object([
                "localId": .string(user.localID.value), "idToken": .string(idToken.token.reveal()),
                "expiresIn": .string(String(idToken.expiresIn)),
            ]))
    }

    /// The configured mail, or `403 operation-not-allowed` naming the setting: without `backend.email` no link can
    /// be sent.
    static func mailer(_ request: AccountsRequest) throws(AccountsError) -> AccountsMail {
        guard let mail = request.backend.mail else {
            throw AccountsError(
                .operationNotAllowed, "this server sends no mail: configure backend.email to send e-mail links")
        }
        return mail
    }

    /// `continueUrl`, when given: only a URL `allowedRedirectURLs` allows (HTTP-API.md §2.7), else `400
    /// unauthorized-redirect-url`.
    static func continueURL(_ body: JSONRequestBody, _ request: AccountsRequest) throws(AccountsError) -> String? {
        guard let url = try body.string("continueUrl", optional: true, maximumBytes: 2048) else { return nil }
        guard request.context.flow.settings.redirectPolicy.allows(url) else {
            throw AccountsError(.unauthorizedRedirectURL, "continueUrl is not allowed by allowedRedirectURLs")
        }
        return url
    }

    // MARK: The action page

    /// `GET /__/auth/action?mode=...&oobCode=...[&continueUrl=...]`: the page, and nothing used.
    static func page(_ context: Route.Context) async -> ServerResponse {
        await answerPage(context) { backend throws(AccountsError) in
            let (mode, code, continueURL) = try parameters(context.request.queryItems, context)
            let info = try await backend.engine.inspectAction(mode: mode, code: code)
            let link = AccountsActionPages.Link(info: info, code: code, continueURL: continueURL)
            return .html(
                AccountsActionPages.form(
                    link, minimumLength: backend.engine.policy.minimumLength, problem: nil,
                    audience: context.audience))
        }
    }

    /// `POST /__/auth/action` (the page's form): uses the code, only from the page itself (``requireSameOrigin``).
    static func act(_ context: Route.Context) async -> ServerResponse {
        await answerPage(context) { backend throws(AccountsError) in
            try requireSameOrigin(context)
            let fields = context.request.formFields
            let (mode, code, continueURL) = try parameters(fields, context)
            let newPassword = fields.first(named: "newPassword")
            do throws(AccountsError) {
                let info = try await backend.engine.applyAction(
                    mode: mode, code: code, newPassword: newPassword, client: client(context), mail: backend.mail)
                return .html(AccountsActionPages.done(info, continueURL: continueURL, audience: context.audience))
            } catch {
                guard error.code == .weakPassword else { throw error }
                // The code is still usable: the form again, saying why.
                let info = try await backend.engine.inspectAction(mode: mode, code: code)
                let link = AccountsActionPages.Link(info: info, code: code, continueURL: continueURL)
                return .html(
                    AccountsActionPages.form(
                        link, minimumLength: backend.engine.policy.minimumLength,
                        problem: APIError.Code.weakPassword.explanationForPeople + " " + error.message,
                        audience: context.audience),
                    status: 400)
            }
        }
    }

    /// Runs `answer` with the accounts backend; its refusals as the link's failure page (JSON when `Accept` prefers
    /// it), every answer with the security headers (`Cache-Control: no-store`, `Referrer-Policy: no-referrer`).
    private static func answerPage(
        _ context: Route.Context, _ answer: (AccountsBackend) async throws(AccountsError) -> ServerResponse
    ) async -> ServerResponse {
        guard let backend = context.flow.backend as? AccountsBackend else { return AccountsRoutes.notServed(context) }
        do {
            return ResponseRendering.secured(try await answer(backend))
        } catch {
            let refusal = APIError(error)
            if ResponseRendering.prefersJSON(context.accept) {
                return ResponseRendering.error(refusal, accept: context.accept, audience: context.audience)
            }
            var response = ServerResponse.html(
                AccountsActionPages.failure(refusal, audience: context.audience), status: refusal.status)
            if let seconds = refusal.retryAfterSeconds {
                response.headers.set(name: "Retry-After", value: String(seconds))
            }
            return ResponseRendering.secured(response)
        }
    }

    /// `mode`, `oobCode` and the allowed `continueUrl` (one that `allowedRedirectURLs` does not allow is left out);
    /// `400 invalid-request` for one missing or given twice.
    private static func parameters(_ fields: [URLFormField], _ context: Route.Context) throws(AccountsError)
        -> (mode: String, code: String, continueURL: String?)
    {
        for name in ["mode", "oobCode", "continueUrl", "newPassword"] where fields.all(named: name).count > 1 {
            throw AccountsError(.invalidRequest, "\(name) is given more than once")
        }
        guard let mode = fields.first(named: "mode"), let code = fields.first(named: "oobCode") else {
            throw AccountsError(.invalidRequest, "the link has no mode or oobCode; open it from the e-mail again")
        }
        let continueURL = fields.first(named: "continueUrl").flatMap {
            context.flow.settings.redirectPolicy.allows($0) ? $0 : nil
        }
        return (mode, code, continueURL)
    }

    /// The action page's POST carries no cookie, only the code, so a cross-site form could do no more with a code
    /// than its holder can; still, it is accepted only from the page itself: `Sec-Fetch-Site: same-origin`, or,
    /// from a browser that sends no Fetch Metadata, an `Origin` equal to `publicURL`'s, or neither header (a client
    /// that is not a browser). Else `400 invalid-request`, and the code stays usable.
    static func requireSameOrigin(
        _ context: Route.Context,
        saying message: String = "the form was not sent from this link's page; open the link again"
    ) throws(AccountsError) {
        let refusal = AccountsError(.invalidRequest, message)
        if let site = context.request.headers["Sec-Fetch-Site"] {
            guard site == "same-origin" else { throw refusal }
            return
        }
        guard let origin = context.request.headers["Origin"] else { return }
        guard origin.lowercased() == publicOrigin(context.flow.settings.redirectURI) else { throw refusal }
    }

    /// `scheme://host[:port]` of `publicURL` (read from the redirect URI, `publicURL` + `/__/auth/handler`), as a
    /// browser writes it in `Origin` (RFC 6454 §6.1: the default port left out).
    static func publicOrigin(_ redirectURI: String) -> String? {
        guard let url = URL(string: redirectURI), let scheme = url.scheme?.lowercased(), let host = url.host else {
            return nil
        }
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        let isDefault =
            url.port == nil || (scheme == "https" && url.port == 443) || (scheme == "http" && url.port == 80)
        return "\(scheme)://\(bracketed.lowercased())" + (isDefault ? "" : ":\(url.port ?? 0)")
    }

    private static func client(_ context: Route.Context) -> ClientKey {
        let request = context.request
        return ClientKey(
            resolved: ClientAddress.resolve(
                peer: request.remoteAddress, forwardedFor: request.headers.values(for: "X-Forwarded-For"),
                trusted: context.flow.settings.trustedProxies))
    }
}
