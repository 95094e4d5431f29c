import AuthHandlerCrypto
import AuthHandlerHTTP

/// What the picker keeps while a provider sign-in it started is away at the provider (HTTP-API.md §3.6, "Provider
/// sign-ins through the picker"): its own verifier for the result it will redeem, the app's start (where the one result
/// goes), and, after a `409 account-exists-with-different-credential`, the pending credential with the verifier of the
/// redemption that produced it. Sealed with AES-256-GCM under the state keys into the `HttpOnly` cookie
/// `auth_handler_picker` (`Path=/__/auth/`, `SameSite=Lax`, so it survives the provider's top-level redirect back),
/// never in a URL.
struct PickerState: Sendable {
    static let cookieName = "auth_handler_picker"
    /// The picker's verifier of the provider sign-in in flight (base64url of 32 random bytes).
    var verifier: String
    var app: PickerEmailStart
    /// After an account-exists answer: the pending credential, the verifier it is bound to, the account's address and
    /// its methods.
    var pendingCredential: String? = nil
    var pendingVerifier: String? = nil
    var email: String? = nil
    var methods: [String] = []

    var json: JSONValue {
        var members: [String: JSONValue] = [
            "v": .string(verifier), "r": .string(app.redirectURL),
            "m": .array(methods.map(JSONValue.string)),
        ]
        if let eventID = app.eventID { members["e"] = .string(eventID) }
        if let challenge = app.resultChallenge { members["c"] = .string(challenge) }
        if let delivery = app.resultDelivery { members["d"] = .string(delivery.rawValue) }
        if let pendingCredential { members["p"] = .string(pendingCredential) }
        if let pendingVerifier { members["pv"] = .string(pendingVerifier) }
        if let email { members["a"] = .string(email) }
        return .object(members)
    }

    init(verifier: String, app: PickerEmailStart) {
        self.verifier = verifier
        self.app = app
    }

    init?(json: JSONValue) {
        guard case .object(let members) = json, let verifier = members["v"]?.stringValue,
            let redirectURL = members["r"]?.stringValue, case .array(let methods)? = members["m"]
        else { return nil }
        let delivery = members["d"]?.stringValue.flatMap(ResultDelivery.init(rawValue:))
        self.verifier = verifier
        app = PickerEmailStart(
            redirectURL: redirectURL, eventID: members["e"]?.stringValue, resultChallenge: members["c"]?.stringValue,
            resultDelivery: delivery)
        pendingCredential = members["p"]?.stringValue
        pendingVerifier = members["pv"]?.stringValue
        email = members["a"]?.stringValue
        self.methods = methods.compactMap(\.stringValue)
    }

    /// The state in this browser's cookie, when one opens under the state keys.
    static func opened(_ cookieHeaders: [String], keys: StateKeyRing) -> PickerState? {
        for value in SignInCookie.values(named: cookieName, in: cookieHeaders) {
            if let plaintext = keys.open(value, context: cookieName), let json = JSONValue.parse(plaintext),
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
            sealed = try settings.stateKeys.seal(json.serialized(sortingKeys: true), context: Self.cookieName)
        } catch {
            throw APIError(.internalError, "the picker's state could not be sealed")
        }
        return Self.header(
            sealed, secure: settings.httpsOrigin, maxAge: Int(settings.sessionTTL.components.seconds))
    }

    /// The `Set-Cookie` that removes the state.
    static func clearing(secure: Bool) -> String { header("", secure: secure, maxAge: 0) }

    private static func header(_ value: String, secure: Bool, maxAge: Int) -> String {
        "\(cookieName)=\(value); Path=\(AccountsRequest.cookiePath); Max-Age=\(maxAge); HttpOnly"
            + (secure ? "; Secure" : "") + "; SameSite=Lax"
    }
}
