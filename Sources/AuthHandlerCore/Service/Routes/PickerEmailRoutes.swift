import AuthHandlerAccounts
import AuthHandlerCrypto
import AuthHandlerHTTP
import Foundation

/// The picker's e-mail entry (HTTP-API.md §3.6): the forms `GET /__/auth/signin` shows with the accounts backend, and
/// `POST /__/auth/signin/email`, which signs in, signs up or asks for a reset mail. A sign-in or sign-up ends as a
/// provider sign-in ends: a result code in the app's `redirectUrl`, redeemed at `POST /__/auth/result`, whose
/// redemption starts the session (HTTP-API.md §3.3).
enum PickerEmailRoutes {
    /// The form fields of the e-mail entry besides the carried start parameters.
    static let formFields = ["csrf", "intent", "email", "password", "newPassword", "displayName", "screen", "link"]

    /// `screen=` of the picker: `sign-in` (the default), `sign-up` or `reset`.
    static func screen(_ fields: [URLFormField]) throws(APIError) -> PickerEmailForm.Screen {
        guard fields.all(named: "screen").count <= 1 else {
            throw APIError(.invalidRequest, "screen is given more than once; send it once")
        }
        guard let name = fields.first(named: "screen") else { return .signIn }
        guard let screen = PickerEmailForm.Screen(rawValue: name) else {
            throw APIError(.invalidRequest, "screen is sign-in, sign-up or reset")
        }
        return screen
    }

    /// The picker's own parameters in `fields`: the carried start parameters and `providers`, in their order.
    static func carried(_ fields: [URLFormField]) -> [URLFormField] {
        fields.filter { SignInStart.carriedStartParameters.contains($0.name) || $0.name == "providers" }
    }

    /// The form of `screen`, its token still to be filled in (``page(_:choices:form:status:)``).
    static func form(_ screen: PickerEmailForm.Screen, fields: [URLFormField], accounts: AccountsBackend)
        -> PickerEmailForm
    {
        PickerEmailForm(
            screen: screen, csrfToken: "", carried: carried(fields),
            minimumLength: accounts.engine.policy.minimumLength)
    }

    /// The picker page with `form`, its CSRF token bound to this browser's cookie, which is set when the browser
    /// holds none (``PickerCSRF``).
    static func page(
        _ context: Route.Context, choices: [PickerChoice], form: PickerEmailForm, status: Int = 200,
        retryAfter: Int? = nil, notice: String? = nil, emailEntry: Bool = true
    ) throws(APIError) -> ServerResponse {
        let csrf = csrf(context)
        var form = form
        form.base = base(context)
        let setCookie: String?
        do {
            let value: String
            (value, setCookie) = try csrf.held(context.request.headers.values(for: "Cookie"))
            form.csrfToken = try csrf.token(for: value)
        } catch {
            throw APIError(.internalError, "the sign-in form's token could not be made: \(error)")
        }
        var response = ServerResponse.html(
            SignInPickerPage.render(
                choices, audience: context.audience, email: emailEntry ? form : nil, viaPicker: true,
                base: form.base, notice: notice),
            status: status)
        if let setCookie { response.headers.add(name: "Set-Cookie", value: setCookie) }
        if let retryAfter { response.headers.set(name: "Retry-After", value: String(retryAfter)) }
        return ResponseRendering.secured(response)
    }

    /// The way from the request's path to the picker's directory: `../` below `/__/auth/signin/`.
    static func base(_ context: Route.Context) -> String {
        context.request.path.hasPrefix("/__/auth/signin/") ? "../" : ""
    }

    static func csrf(_ context: Route.Context) -> PickerCSRF {
        PickerCSRF(keys: context.flow.settings.stateKeys, https: context.flow.settings.httpsOrigin)
    }

    /// What a checked form asks for.
    struct Submission {
        var intent: PickerEmailForm.Screen
        var start: PickerEmailStart
        var choices: [PickerChoice]
        var form: PickerEmailForm
    }

    /// `POST /__/auth/signin/email`. The request must come from the picker's own page (`Sec-Fetch-Site`/`Origin`, as
    /// the action page's) and carry the CSRF token of this browser's cookie; the carried start parameters are checked
    /// again as a start checks them. Those refusals are error pages (HTTP-API.md §3.5); the accounts' refusals come
    /// back as the form, the address kept (never the password), with the error inline.
    static func submit(_ context: Route.Context) async -> ServerResponse {
        guard let accounts = context.flow.backend as? AccountsBackend else { return AccountsRoutes.notServed(context) }
        let submission: Submission
        do {
            submission = try check(context, accounts)
        } catch {
            return ResponseRendering.error(error, accept: context.accept, audience: context.audience)
        }
        do throws(AccountsError) {
            return try await act(submission, context, accounts)
        } catch {
            if error.code == .tooManyRequests { accounts.metrics.throttled(endpoint: context.request.path) }
            let refusal = APIError(error)
            var form = submission.form
            form.problem = PickerEmailForm.Problem(code: refusal.code.rawValue, text: explanation(refusal))
            do {
                return try page(
                    context, choices: submission.choices, form: form, status: refusal.status,
                    retryAfter: refusal.retryAfterSeconds)
            } catch {
                return ResponseRendering.error(error, accept: context.accept, audience: context.audience)
            }
        }
    }

    /// The checks before anything is done: origin, repeated fields, the picker's parameters, the CSRF token.
    private static func check(_ context: Route.Context, _ accounts: AccountsBackend) throws(APIError) -> Submission {
        do {
            try AccountsActionRoutes.requireSameOrigin(
                context, saying: "the form was not sent from the sign-in page; open the sign-in page again")
        } catch {
            throw APIError(error)
        }
        let fields = context.request.formFields
        for name in formFields where fields.all(named: name).count > 1 {
            throw APIError(.invalidRequest, "\(name) is given more than once; send it once")
        }
        let offer = try context.flow.pickerOffer(fields, passwords: accounts.engine.settings.passwordsEnabled)
        guard offer.email else {
            throw APIError(.operationNotAllowed, "e-mail and password sign-in is not offered for this sign-in")
        }
        let start = try context.flow.pickerEmailStart(fields)
        guard
            csrf(context).accepts(
                fields.first(named: "csrf"), cookieHeaders: context.request.headers.values(for: "Cookie"))
        else {
            throw APIError(
                .invalidRequest,
                "the form's CSRF token is missing or does not belong to this browser; open the sign-in page again")
        }
        guard let intent = PickerEmailForm.Screen(rawValue: fields.first(named: "intent") ?? "") else {
            throw APIError(.invalidRequest, "intent is sign-in, sign-up or reset")
        }
        var form = form(intent, fields: fields, accounts: accounts)
        form.email = fields.first(named: "email")
        form.displayName = fields.first(named: "displayName")
        form.link = intent == .signIn ? fields.first(named: "link") : nil
        return Submission(intent: intent, start: start, choices: offer.choices, form: form)
    }

    /// Signs in, signs up, or asks for the reset mail.
    private static func act(_ submission: Submission, _ context: Route.Context, _ accounts: AccountsBackend)
        async throws(AccountsError) -> ServerResponse
    {
        let request = AccountsRequest(context: context, backend: accounts)
        let fields = context.request.formFields
        let email = fields.first(named: "email") ?? ""
        guard email.utf8.count <= 1024 else { throw AccountsError(.invalidEmail, "the e-mail address is too long") }
        switch submission.intent {
        case .signIn:
            return try await signIn(submission, context, accounts, email: email)
        case .signUp:
            let displayName = fields.first(named: "displayName").flatMap { $0.isEmpty ? nil : $0 }
            guard (displayName?.utf8.count ?? 0) <= 256 else {
                throw AccountsError(.invalidRequest, "the name is too long: at most 256 bytes")
            }
            let user = try await AccountsMetrics.counted(accounts.metrics.signUp) { () async throws(AccountsError) in
                try await accounts.engine.createPasswordUser(
                    email: email, password: try password(fields, "newPassword"), displayName: displayName,
                    client: request.client)
            }
            return try await finish(submission, context, user: user, isNewUser: true)
        case .reset:
            return try reset(submission, context, accounts, email: email)
        }
    }

    /// A password sign-in. Only the account-exists page's form (its `link` field) links the pending credential held
    /// in the picker's state, and only when the state is this browser's and the account is the one the page named
    /// (``PickerState``); a plain sign-in ignores a held state and clears it. A link that fails clears the state and
    /// shows the plain form again, so a stale or planted state never locks the e-mail form.
    private static func signIn(
        _ submission: Submission, _ context: Route.Context, _ accounts: AccountsBackend, email: String
    ) async throws(AccountsError) -> ServerResponse {
        let request = AccountsRequest(context: context, backend: accounts)
        let (cookies, settings) = (context.request.headers.values(for: "Cookie"), context.flow.settings)
        var linking: PickerState?
        if let link = submission.form.link {
            guard let held = PickerState.opened(cookies, keys: settings.stateKeys, https: settings.httpsOrigin),
                held.allowsLink(link, cookieHeaders: cookies, csrf: csrf(context))
            else {
                return try linkFailed(
                    AccountsError(
                        .invalidPendingCredential, "the account to link is not waiting in this browser, or it expired"),
                    submission, context)
            }
            linking = held
        }
        let deviceCookie = SignInCookie.values(named: DeviceCookie.name, in: cookies).first
        let fields = context.request.formFields
        let checked = try await AccountsMetrics.counted({ accounts.metrics.signIn(method: "password", $0) }) {
            () async throws(AccountsError) in
            try await accounts.engine.checkPassword(
                email: email, password: try password(fields, "password"), client: request.client,
                deviceCookie: deviceCookie)
        }
        if let linking {
            do throws(AccountsError) {
                try await PickerProviderRoutes.linkPending(linking, to: checked.user, accounts)
            } catch {
                return try linkFailed(error, submission, context)
            }
        }
        var response = try await finish(submission, context, user: checked.user, isNewUser: false)
        if PickerState.isHeld(cookies, https: settings.httpsOrigin) {
            response.headers.add(name: "Set-Cookie", value: PickerState.clearing(secure: settings.httpsOrigin))
        }
        let device = accounts.engine.deviceCookies.setCookie(checked.deviceCookie, secure: request.secureCookies)
        response.headers.add(name: "Set-Cookie", value: device.fieldValue)
        return response
    }

    /// The plain sign-in form again after a link step failed: the reason inline, the picker's state cleared.
    private static func linkFailed(_ error: AccountsError, _ submission: Submission, _ context: Route.Context)
        throws(AccountsError) -> ServerResponse
    {
        let refusal = APIError(error)
        var form = submission.form
        form.link = nil
        form.problem = PickerEmailForm.Problem(
            code: refusal.code.rawValue,
            text: "The other sign-in could not be linked: " + explanation(refusal)
                + " Sign in again, or start again from the app to link it.")
        var response: ServerResponse
        do {
            response = try page(context, choices: submission.choices, form: form, status: refusal.status)
        } catch {
            throw AccountsError(.internalError, error.message)
        }
        response.headers.add(
            name: "Set-Cookie", value: PickerState.clearing(secure: context.flow.settings.httpsOrigin))
        return response
    }

    /// The password field `name`, or `400 invalid-request` when it is missing or over the length any policy allows.
    private static func password(_ fields: [URLFormField], _ name: String) throws(AccountsError) -> String {
        guard let password = fields.first(named: name), !password.isEmpty else {
            throw AccountsError(.invalidRequest, "enter a password")
        }
        guard password.utf8.count <= NormalizedPassword.maximumInputBytes else {
            throw AccountsError(.weakPassword, "the password is too long")
        }
        return password
    }

    /// The result of a sign-in or sign-up kept for the app, and the `303` that takes the browser to it.
    private static func finish(
        _ submission: Submission, _ context: Route.Context, user: AccountUser, isNewUser: Bool
    ) async throws(AccountsError) -> ServerResponse {
        let location: String
        do {
            location = try await context.flow.savePickerResult(
                submission.start, localID: user.localID.value, email: user.email, displayName: user.displayName,
                isNewUser: isNewUser)
        } catch {
            throw AccountsError(.internalError, error.message)
        }
        return ResponseRendering.secured(.redirect(to: location, status: 303))
    }

    /// The reset request: the same page for every address, answered before the address is looked up; the lookup and
    /// the mail run detached, as `POST /__/auth/password/reset` does (HTTP-API.md §3.10), so neither the page nor its
    /// time tells whether the address has an account.
    private static func reset(
        _ submission: Submission, _ context: Route.Context, _ accounts: AccountsBackend, email text: String
    ) throws(AccountsError) -> ServerResponse {
        guard let mail = accounts.mail else {
            throw AccountsError(
                .operationNotAllowed, "this server sends no e-mail, so a password cannot be reset here")
        }
        let email = try AccountsEngine.email(text)
        AccountsActionRoutes.resetDetached(
            email: email.given, continueURL: nil, engine: accounts.engine, mail: mail, log: context.service.log)
        var form = submission.form
        form.resetSentTo = email.given
        do {
            return try page(context, choices: submission.choices, form: form)
        } catch {
            throw AccountsError(.internalError, error.message)
        }
    }

    /// The sentence above the form for a refusal: the code's explanation, with the weak password's reason and the
    /// throttle's wait.
    static func explanation(_ refusal: APIError) -> String {
        switch refusal.code {
        case .weakPassword, .invalidEmail: refusal.code.explanationForPeople + " (" + refusal.message + ")"
        case .emailAlreadyInUse:
            "An account with this e-mail address exists. Sign in instead, or reset its password."
        case .tooManyRequests:
            "Too many attempts. Wait \(refusal.retryAfterSeconds ?? 60) seconds, then try again."
        case .invalidRequest, .operationNotAllowed: refusal.message.prefix(1).uppercased() + refusal.message.dropFirst()
        default: refusal.code.explanationForPeople
        }
    }
}
