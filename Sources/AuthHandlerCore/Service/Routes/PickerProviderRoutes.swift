import AuthHandlerAccounts
import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerProtocols
import Foundation

/// Provider sign-ins through the picker, with backend `accounts` (HTTP-API.md §3.6, "Provider sign-ins through the
/// picker"): the picker starts the provider sign-in itself with its own verifier, the provider's result comes back
/// to the picker, which redeems it in-process, so it can answer `409 account-exists-with-different-credential` with
/// the account-exists page and link the pending credential after the user signs in to the account, as FirebaseUI
/// does. The app gets one result: the signed-in (and linked) account, redeemed at `POST /__/auth/result` as any.
package enum PickerProviderRoutes {
    static let startPath = "/__/auth/signin/provider"
    package static let returnPath = "/__/auth/signin/return"

    /// `GET /__/auth/signin/provider?providerId=…&<the picker's parameters>`: the app's start is checked as the
    /// picker checks it; the provider sign-in starts with `redirectUrl` the return path, and the picker's state
    /// (``PickerState``) is set beside the start's own cookie.
    static func start(_ context: Route.Context) async -> ServerResponse {
        guard context.flow.backend is AccountsBackend else { return AccountsRoutes.notServed(context) }
        let settings = context.flow.settings
        let request = context.request
        do throws(APIError) {
            let fields = request.queryItems
            let app = try context.flow.pickerEmailStart(fields)
            let verifier: String
            let challenge: String
            do {
                verifier = try SecureRandom.base64URLString(byteCount: 32)
                challenge = try PKCE.challenge(forVerifier: verifier)
            } catch {
                throw APIError(.internalError, "the picker's verifier could not be made")
            }
            let cookies = request.headers.values(for: "Cookie")
            let csrf = PickerEmailRoutes.csrf(context)
            let browser: (value: String, setCookie: String?)
            do {
                browser = try csrf.held(cookies)
            } catch {
                throw APIError(.internalError, "the picker's browser binding could not be made")
            }
            var state = PickerState(verifier: verifier, app: app, browser: try digest(browser.value))
            // Only the account-exists page's buttons (`link`) carry its pending credential on, and only in the
            // browser that holds it (``PickerState``); any other start leaves a held state behind (its cookie is
            // replaced).
            if let link = fields.first(named: "link") {
                guard
                    let held = PickerState.opened(cookies, keys: settings.stateKeys, https: settings.httpsOrigin),
                    held.allowsLink(link, cookieHeaders: cookies, csrf: csrf)
                else { return linkRefused(context) }
                (state.pendingCredential, state.pendingVerifier) = (held.pendingCredential, held.pendingVerifier)
                (state.email, state.methods, state.linkToken) = (held.email, held.methods, held.linkToken)
            }
            var start = [
                URLFormField(name: "redirectUrl", value: publicURL(settings) + returnPath),
                URLFormField(name: "resultChallenge", value: challenge),
            ]
            start += fields.filter { ["providerId", "scopes", "customParameters"].contains($0.name) }
            let client = ClientAddress.resolve(
                peer: request.remoteAddress, forwardedFor: request.headers.values(for: "X-Forwarded-For"),
                trusted: settings.trustedProxies)
            let outcome: Result<StartAnswer, APIError>
            do {
                outcome = .success(
                    try await context.flow.start(
                        start, client: client, cookieHeaders: request.headers.values(for: "Cookie"),
                        fetchMetadata: SignInRoutes.fetchMetadata(request)))
            } catch {
                outcome = .failure(error)
            }
            var response = SignInRoutes.startResponse(outcome, context: context)
            if case .success = outcome {
                if let setCookie = browser.setCookie { response.headers.add(name: "Set-Cookie", value: setCookie) }
                response.headers.add(name: "Set-Cookie", value: try state.setCookie(settings))
            }
            return response
        } catch {
            return ResponseRendering.error(error, accept: context.accept, audience: context.audience)
        }
    }

    /// `GET /__/auth/signin/return?code=…` (or `error=…`): the provider sign-in's result, redeemed with the picker's
    /// verifier. Success: the session that redemption started is ended at once (it is not the app's), the pending
    /// credential linked when one is held, and the one result kept for the app, the browser sent on to it. `409
    /// account-exists-with-different-credential`: the account-exists page, the pending credential kept in the state.
    static func finish(_ context: Route.Context) async -> ServerResponse {
        guard let accounts = context.flow.backend as? AccountsBackend else { return AccountsRoutes.notServed(context) }
        let settings = context.flow.settings
        let fields = context.request.queryItems
        let cookies = context.request.headers.values(for: "Cookie")
        guard var state = PickerState.opened(cookies, keys: settings.stateKeys, https: settings.httpsOrigin),
            state.isBound(to: cookies, csrf: PickerEmailRoutes.csrf(context))
        else {
            // None, or another browser's (``PickerState``): refused, and whatever is held cleared.
            return refused(
                .invalidState,
                "this browser holds no sign-in started from the picker, or it expired; start again from the app",
                context, clearing: PickerState.isHeld(cookies, https: settings.httpsOrigin))
        }
        let clear = PickerState.clearing(secure: settings.httpsOrigin)
        // Checked again, as a callback checks it (HTTP-API.md §3.2): a reload may have removed the app's entry while
        // the user was at the provider, and nothing goes to a URL the config no longer allows.
        guard settings.redirectPolicy.allows(state.app.redirectURL) else {
            return refused(
                .unauthorizedRedirectURL,
                "this sign-in's redirectUrl is no longer in allowedRedirectURLs; start again from the app", context)
        }
        if let error = fields.first(named: "error") {
            return toApp(
                state, [("error", error), ("error_description", fields.first(named: "error_description") ?? "")],
                clear: clear)
        }
        let answer: RedemptionAnswer
        do {
            answer = try await context.flow.redeem([
                URLFormField(name: "code", value: fields.first(named: "code") ?? ""),
                URLFormField(name: "verifier", value: state.verifier),
            ])
        } catch {
            guard error.code == .accountExistsWithDifferentCredential,
                let pending = error.details["pendingCredential"]?.stringValue
            else {
                return toApp(
                    state, [("error", error.code.rawValue), ("error_description", error.message)], clear: clear)
            }
            state.pendingCredential = pending
            state.pendingVerifier = state.verifier
            state.email = error.details["email"]?.stringValue
            if case .array(let methods)? = error.details["verifiedProviders"] {
                state.methods = methods.compactMap(\.stringValue)
            }
            return accountExists(state, context, accounts)
        }
        do throws(AccountsError) {
            guard case .string(let refreshToken)? = answer.signIn?["refreshToken"],
                let (session, user) = try await accounts.engine.sessionOf(refreshToken: refreshToken)
            else { throw AccountsError(.internalError, "the provider sign-in answered no session") }
            try await accounts.engine.signOut(session: session, user: user, scope: .local)
            // A pending credential is in the state only when a `link` start carried it on, in this browser.
            if state.pendingCredential != nil { try await linkPending(state, to: user, accounts) }
            let location: String
            do {
                location = try await context.flow.savePickerResult(
                    state.app, localID: user.localID.value, email: user.email, displayName: user.displayName,
                    isNewUser: answer.signIn?["isNewUser"] == .bool(true), method: answer.providerId)
            } catch {
                throw AccountsError(.internalError, error.message)
            }
            var response = ResponseRendering.secured(.redirect(to: location, status: 303))
            response.headers.add(name: "Set-Cookie", value: clear)
            return response
        } catch {
            let refusal = APIError(error)
            return toApp(
                state, [("error", refusal.code.rawValue), ("error_description", refusal.message)], clear: clear)
        }
    }

    /// Links the state's pending credential to `user`, who has just signed in (the engine's checks of
    /// `POST /__/auth/user/link`: the verifier it is bound to, its account, once), and mails the account.
    static func linkPending(_ state: PickerState, to user: AccountUser, _ accounts: AccountsBackend)
        async throws(AccountsError)
    {
        guard let pending = state.pendingCredential, let verifier = state.pendingVerifier else { return }
        // The account the account-exists page named (the engine checks the credential's account as well).
        guard let named = state.email, user.email?.lowercased() == named.lowercased() else {
            throw AccountsError(.userMismatch, "this is not the account the page asked to sign in to")
        }
        _ = try await accounts.engine.linkPending(
            to: user, authTime: Date(), pendingCredential: pending, verifier: verifier, mail: accounts.mail)
    }

    /// The account-exists page: "You already have an account with EMAIL — sign in with METHOD to link", the e-mail
    /// form prefilled when the account has a password, and the buttons of its providers.
    private static func accountExists(_ state: PickerState, _ context: Route.Context, _ accounts: AccountsBackend)
        -> ServerResponse
    {
        var state = state
        do {
            state.linkToken = try SecureRandom.base64URLString(byteCount: 32)
        } catch {
            return ResponseRendering.error(
                APIError(.internalError, "the link token could not be made"), accept: context.accept,
                audience: context.audience)
        }
        let link = URLFormField(name: "link", value: state.linkToken ?? "")
        let appFields = appFields(state.app)
        let choices = state.methods.compactMap { id -> PickerChoice? in
            guard let provider = context.flow.providers[id] else { return nil }
            return PickerChoice(
                providerID: id, displayName: provider.displayName,
                startQuery: FormURLEncoding.encode([URLFormField(name: "providerId", value: id)] + appFields + [link]))
        }
        let names = state.methods.map { id in
            id == SignInStart.passwordProviderID ? "your password" : context.flow.providers[id]?.displayName ?? id
        }
        let notice =
            "You already have an account with \(state.email ?? "this e-mail address") — sign in with "
            + names.joined(separator: " or ") + " to link."
        var form = PickerEmailRoutes.form(.signIn, fields: appFields, accounts: accounts)
        form.email = state.email
        form.link = state.linkToken
        do {
            var response = try PickerEmailRoutes.page(
                context, choices: choices, form: form, status: 200, notice: notice,
                emailEntry: state.methods.contains(SignInStart.passwordProviderID))
            response.headers.add(name: "Set-Cookie", value: try state.setCookie(context.flow.settings))
            return response
        } catch {
            return ResponseRendering.error(error, accept: context.accept, audience: context.audience)
        }
    }

    /// A `link` start whose pending credential is not this browser's (or gone): refused, the held state cleared, so
    /// it cannot stand in the way of a plain sign-in.
    private static func linkRefused(_ context: Route.Context) -> ServerResponse {
        refused(
            .invalidState,
            "the account to link is not waiting in this browser, or it expired; start the sign-in again from the app",
            context)
    }

    /// The error page (or JSON) of a refusal, the picker's state cleared unless `clearing` is false.
    private static func refused(
        _ code: APIError.Code, _ message: String, _ context: Route.Context, clearing: Bool = true
    ) -> ServerResponse {
        var refused = ResponseRendering.error(
            APIError(code, message), accept: context.accept, audience: context.audience)
        if clearing {
            refused.headers.add(
                name: "Set-Cookie", value: PickerState.clearing(secure: context.flow.settings.httpsOrigin))
        }
        return refused
    }

    /// ``PickerState/browserDigest(_:)`` as an ``APIError``.
    static func digest(_ value: String) throws(APIError) -> String {
        do {
            return try PickerState.browserDigest(value)
        } catch {
            throw APIError(.internalError, "the picker's browser binding could not be made")
        }
    }

    /// The app's start as the picker's parameters.
    static func appFields(_ app: PickerEmailStart) -> [URLFormField] {
        var fields = [URLFormField(name: "redirectUrl", value: app.redirectURL)]
        if let eventID = app.eventID { fields.append(URLFormField(name: "eventId", value: eventID)) }
        if let challenge = app.resultChallenge {
            fields.append(URLFormField(name: "resultChallenge", value: challenge))
        }
        if let delivery = app.resultDelivery {
            fields.append(URLFormField(name: "resultDelivery", value: delivery.rawValue))
        }
        return fields
    }

    /// The `303` to the app with `fields` (an error), as a callback sends one, the state cleared.
    private static func toApp(_ state: PickerState, _ fields: [(String, String)], clear: String) -> ServerResponse {
        var back = fields.map { URLFormField(name: $0.0, value: $0.1) }
        if let eventID = state.app.eventID { back.append(URLFormField(name: "eventId", value: eventID)) }
        var response = ResponseRendering.secured(
            .redirect(to: (state.app.resultDelivery ?? .query).appending(back, to: state.app.redirectURL), status: 303))
        response.headers.add(name: "Set-Cookie", value: clear)
        return response
    }

    /// `publicURL`, read from the redirect URI (`publicURL` + `/__/auth/handler`).
    static func publicURL(_ settings: SignInFlow.Settings) -> String {
        String(settings.redirectURI.dropLast("/__/auth/handler".count))
    }
}
