import AuthHandlerCrypto
import AuthHandlerHTTP

/// What the picker keeps while a provider sign-in it started is away at the provider (HTTP-API.md §3.6, "Provider
/// sign-ins through the picker"): its own verifier for the result it will redeem, the app's start (where the one result
/// goes), and, after a `409 account-exists-with-different-credential`, the pending credential with the verifier of the
/// redemption that produced it. Sealed with AES-256-GCM under the state keys into the `HttpOnly` cookie
/// `__Host-auth_handler_picker` (`Secure`, `Path=/`, no `Domain`: RFC 6265bis §4.1.3.2, so neither a sibling subdomain
/// nor an http page on the path can set it; `auth_handler_picker` with `Path=/__/auth/` over http, as ``PickerCSRF``'s
/// cookie) with `SameSite=Lax`, so it survives the provider's top-level redirect back; never in a URL.
///
/// A sealed cookie is still one another browser can hold: the attacker's own state, copied from their browser and
/// planted in the victim's (the OWASP CSRF Prevention Cheat Sheet's cookie tossing). So the state is bound to the
/// browser that started it: it keeps the SHA-256 of that browser's ``PickerCSRF`` cookie value, and a pending
/// credential is carried or linked only for a request whose CSRF cookie has that digest, and only on the
/// account-exists page's explicit link step (its `link` field, ``linkToken``) — docs/ACCOUNTS.md "Sign-in through the
/// picker, and login CSRF".
struct PickerState: Sendable {
    /// The sealing context (and the cookie's name over http).
    static let context = "auth_handler_picker"
    /// The picker's verifier of the provider sign-in in flight (base64url of 32 random bytes).
    var verifier: String
    var app: PickerEmailStart
    /// base64url of SHA-256 of the ``PickerCSRF`` cookie value of the browser that started this state.
    var browser: String
    /// The account-exists page's link token (base64url of 32 random bytes), its forms' and buttons' `link` field.
    var linkToken: String? = nil
    /// After an account-exists answer: the pending credential, the verifier it is bound to, the account's address and
    /// its methods.
    var pendingCredential: String? = nil
    var pendingVerifier: String? = nil
    var email: String? = nil
    var methods: [String] = []

    var json: JSONValue {
        var members: [String: JSONValue] = [
            "v": .string(verifier), "r": .string(app.redirectURL), "b": .string(browser),
            "m": .array(methods.map(JSONValue.string)),
        ]
        if let eventID = app.eventID { members["e"] = .string(eventID) }
        if let challenge = app.resultChallenge { members["c"] = .string(challenge) }
        if let delivery = app.resultDelivery { members["d"] = .string(delivery.rawValue) }
        if let pendingCredential { members["p"] = .string(pendingCredential) }
        if let pendingVerifier { members["pv"] = .string(pendingVerifier) }
        if let email { members["a"] = .string(email) }
        if let linkToken { members["k"] = .string(linkToken) }
        return .object(members)
    }

    init(verifier: String, app: PickerEmailStart, browser: String) {
        self.verifier = verifier
        self.app = app
        self.browser = browser
    }

    init?(json: JSONValue) {
        guard case .object(let members) = json, let verifier = members["v"]?.stringValue,
            let redirectURL = members["r"]?.stringValue, case .array(let methods)? = members["m"],
            let browser = members["b"]?.stringValue
        else { return nil }
        let delivery = members["d"]?.stringValue.flatMap(ResultDelivery.init(rawValue:))
        self.verifier = verifier
        self.browser = browser
        linkToken = members["k"]?.stringValue
        app = PickerEmailStart(
            redirectURL: redirectURL, eventID: members["e"]?.stringValue, resultChallenge: members["c"]?.stringValue,
            resultDelivery: delivery)
        pendingCredential = members["p"]?.stringValue
        pendingVerifier = members["pv"]?.stringValue
        email = members["a"]?.stringValue
        self.methods = methods.compactMap(\.stringValue)
    }

    /// The cookie's name: `__Host-auth_handler_picker` over https, `auth_handler_picker` over http.
    static func cookieName(https: Bool) -> String { (https ? "__Host-" : "") + context }

    /// The digest a state keeps of the CSRF cookie `value`: base64url of its SHA-256.
    static func browserDigest(_ value: String) throws(CryptoError) -> String {
        Base64.urlEncode(try SHA256.hash(Array(value.utf8)))
    }

    /// Whether the request's CSRF cookie (``PickerCSRF``) is the one of the browser that started this state.
    func isBound(to cookieHeaders: [String], csrf: PickerCSRF) -> Bool {
        SignInCookie.values(named: csrf.cookieName, in: cookieHeaders).contains { value in
            guard let digest = try? Self.browserDigest(value) else { return false }
            return ConstantTime.equals(Array(digest.utf8), Array(browser.utf8))
        }
    }

    /// Whether `link` (the account-exists page's `link` field) is this state's link token, with a pending credential
    /// to link, in the browser that started it.
    func allowsLink(_ link: String?, cookieHeaders: [String], csrf: PickerCSRF) -> Bool {
        guard let link, let linkToken, pendingCredential != nil, pendingVerifier != nil else { return false }
        return ConstantTime.equals(Array(link.utf8), Array(linkToken.utf8)) && isBound(to: cookieHeaders, csrf: csrf)
    }

    /// Whether the request carries a state cookie at all (opened or not).
    static func isHeld(_ cookieHeaders: [String], https: Bool) -> Bool {
        !SignInCookie.values(named: cookieName(https: https), in: cookieHeaders).isEmpty
    }

    /// The state in this browser's cookie, when one opens under the state keys.
    static func opened(_ cookieHeaders: [String], keys: StateKeyRing, https: Bool) -> PickerState? {
        for value in SignInCookie.values(named: cookieName(https: https), in: cookieHeaders) {
            if let plaintext = keys.open(value, context: context), let json = JSONValue.parse(plaintext),
                let state = PickerState(json: json)
            {
                return state
            }
        }
        return nil
    }

    /// The `Set-Cookie` that keeps this state as long as a pending sign-in lives (`sessionTTLSeconds`).
    func setCookie(_ settings: SignInFlow.Settings) throws(APIError) -> String {
        let sealed: String
        do {
            sealed = try settings.stateKeys.seal(json.serialized(sortingKeys: true), context: Self.context)
        } catch {
            throw APIError(.internalError, "the picker's state could not be sealed")
        }
        return Self.header(
            sealed, secure: settings.httpsOrigin, maxAge: Int(settings.sessionTTL.components.seconds))
    }

    /// The `Set-Cookie` that removes the state.
    static func clearing(secure: Bool) -> String { header("", secure: secure, maxAge: 0) }

    private static func header(_ value: String, secure: Bool, maxAge: Int) -> String {
        "\(cookieName(https: secure))=\(value); Path=\(secure ? "/" : AccountsRequest.cookiePath); Max-Age=\(maxAge); "
            + "HttpOnly" + (secure ? "; Secure" : "") + "; SameSite=Lax"
    }
}
