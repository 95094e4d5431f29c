import AuthHandlerHTTP
import Foundation

/// A sign-in between its start and the IdP's callback, sealed into the browser's cookie (HTTP-API.md §3.1) and found
/// again by its `state` (OAuth 2) or its request token (OAuth 1.0a). Everything the callback checks against comes
/// from here, never from the callback.
package struct PendingSession: Sendable, Equatable {
    var providerID: String
    /// OAuth 2 / OIDC: the `state` sent to the IdP; the callback's must equal it.
    var state: String?
    var redirectURL: String
    var authType: AuthType
    var eventID: String?
    /// base64url SHA-256 of the app's redemption verifier, when the app gave one.
    var resultChallenge: String?
    var scopes: [String]
    /// OAuth 2 / OIDC: the PKCE verifier and, for OIDC, the raw nonce (the authorization request carried its hash,
    /// `OIDCNonce.hashed`).
    var codeVerifier: String?
    var nonce: String?
    /// OAuth 1.0a: the request token and its secret.
    var requestToken: String?
    var requestTokenSecret: String?
    var createdAt: Date
    var expiresAt: Date
    /// A device sign-in's result code (HTTP-API.md §3.9): the callback keeps the result under it for the polling
    /// device instead of sending the browser to an app.
    var deviceResultCode: String? = nil
    /// Where the callback puts the result in `redirectURL` (the start's `resultDelivery`, HTTP-API.md §3.1); nil,
    /// as in every cookie sealed before this member existed, is the query.
    var resultDelivery: ResultDelivery? = nil

    /// The members' names in the sealed JSON, short: the sealed session must fit in a cookie of
    /// ``SignInCookie/maximumLength`` bytes.
    enum Member: String {
        case providerID = "p"
        case state = "s"
        case redirectURL = "r"
        case authType = "a"
        case eventID = "e"
        case resultChallenge = "c"
        case scopes = "sc"
        case codeVerifier = "v"
        case nonce = "n"
        case requestToken = "t"
        case requestTokenSecret = "ts"
        case createdAt = "ct"
        case expiresAt = "x"
        case deviceResultCode = "d"
        case resultDelivery = "rd"
    }

    /// The state (OAuth 2) or request token (OAuth 1.0a) the sign-in is found and recorded by.
    var lookupKey: String? { state ?? requestToken }
}

/// A completed sign-in waiting for the app to redeem its one-time result code.
struct StoredResult: Sendable, Equatable {
    var providerID: String
    var authType: AuthType
    var eventID: String?
    var resultChallenge: String?
    var credential: IdPCredential
    var profile: ProviderProfile
    /// The handler URL the IdP sent the browser to (Identity Toolkit's `requestUri`).
    var requestURI: String
    var createdAt: Date
    /// Set for a sign-in the daemon's own accounts made (the picker's e-mail entry, HTTP-API.md §3.6): who signed in.
    /// Its redemption starts the accounts session; a provider result has none.
    var account: AccountResult? = nil
}

/// Who a picker sign-in signed in to the accounts backend (HTTP-API.md §3.6): the session is started only when the app
/// redeems the result, so no refresh token exists before the app holds the code and its verifier.
struct AccountResult: Sendable, Equatable {
    /// The user's `localId`.
    var localID: String
    /// How they signed in (`password`), the session's `sign_in_provider`.
    var method: String
    /// When the password was checked: the session's `auth_time`.
    var authTime: Date
    var isNewUser: Bool
}

extension PendingSession {
    /// The store key under which a used OAuth 2 state is recorded.
    static func key(state: String) -> String { "state:" + state }
    /// The store key under which a used OAuth 1.0a request token is recorded.
    static func key(requestToken: String) -> String { "oauth1:" + requestToken }

    /// The pending sign-in sealed in the cookie `cookieName` with `value` (HTTP-API.md §3.2); nil when it does not
    /// open under any of `keys` or does not decode.
    package static func opening(_ value: String, cookieName: String, keys: StateKeyRing) -> PendingSession? {
        keys.open(value, context: cookieName).flatMap(decoding)
    }

    /// The plaintext sealed into the cookie: the JSON earlier releases sealed with `JSONEncoder`, so cookies sealed by
    /// either open (HTTP-API.md §3.1, §3.2; `FlowHotPathJSONTests` keeps one).
    var plaintext: [UInt8] { serialized }

    /// The pending sign-in from the plaintext of its opened cookie; nil when it does not decode (``init(json:)``).
    package static func decoding(_ plaintext: [UInt8]) -> PendingSession? {
        PendingSession(parsing: plaintext)
    }
}

extension PendingSession: JSONWritable, JSONReadable {
    /// The session as the JSON sealed into the cookie: the short ``Member`` names, absent optionals left out, the
    /// dates as seconds since 2001-01-01 (the form `JSONEncoder`'s default date strategy gave earlier releases'
    /// cookies), written through `JSONValue` (a measurable part of a start, BENCHMARKS.md).
    package var json: JSONValue {
        var members: [String: JSONValue] = [
            Member.providerID.rawValue: .string(providerID), Member.redirectURL.rawValue: .string(redirectURL),
            Member.authType.rawValue: .string(authType.rawValue),
            Member.scopes.rawValue: .array(scopes.map { .string($0) }),
            Member.createdAt.rawValue: .number(createdAt.timeIntervalSinceReferenceDate),
            Member.expiresAt.rawValue: .number(expiresAt.timeIntervalSinceReferenceDate),
        ]
        let optionals: [(Member, String?)] = [
            (.state, state), (.eventID, eventID), (.resultChallenge, resultChallenge), (.codeVerifier, codeVerifier),
            (.nonce, nonce), (.requestToken, requestToken), (.requestTokenSecret, requestTokenSecret),
            (.deviceResultCode, deviceResultCode), (.resultDelivery, resultDelivery?.rawValue),
        ]
        for case (let key, let value?) in optionals { members[key.rawValue] = .string(value) }
        return .object(members)
    }

    /// The session in `json`; nil when a required member is missing or any member is of the wrong type (absent and
    /// `null` optionals are nil, unknown members ignored, as `JSONDecoder` read earlier releases' cookies). Read
    /// through `JSONValue.parse` rather than `JSONDecoder`, a measurable part of every callback (BENCHMARKS.md).
    package init?(json: JSONValue) {
        guard case .object(let members) = json else { return nil }
        func optional(_ key: Member) -> String?? { members[key.rawValue].optionalString }
        func date(_ key: Member) -> Date? {
            members[key.rawValue]?.numberValue.map { Date(timeIntervalSinceReferenceDate: $0) }
        }
        guard let providerID = members[Member.providerID.rawValue]?.stringValue,
            let redirectURL = members[Member.redirectURL.rawValue]?.stringValue,
            let authType = members[Member.authType.rawValue]?.stringValue.flatMap(AuthType.init(rawValue:)),
            case .array(let scopeValues)? = members[Member.scopes.rawValue],
            let createdAt = date(.createdAt), let expiresAt = date(.expiresAt),
            let state = optional(.state), let eventID = optional(.eventID),
            let resultChallenge = optional(.resultChallenge), let codeVerifier = optional(.codeVerifier),
            let nonce = optional(.nonce), let requestToken = optional(.requestToken),
            let requestTokenSecret = optional(.requestTokenSecret), let deviceResultCode = optional(.deviceResultCode),
            let deliveryName = optional(.resultDelivery)
        else { return nil }
        // An unknown delivery does not decode, as JSONDecoder refused it: no result goes where the start did not ask.
        let resultDelivery = deliveryName.map(ResultDelivery.init(rawValue:))
        guard resultDelivery != .some(nil) else { return nil }
        let scopes = scopeValues.compactMap(\.stringValue)
        guard scopes.count == scopeValues.count else { return nil }
        self.init(
            providerID: providerID, state: state, redirectURL: redirectURL, authType: authType, eventID: eventID,
            resultChallenge: resultChallenge, scopes: scopes, codeVerifier: codeVerifier, nonce: nonce,
            requestToken: requestToken, requestTokenSecret: requestTokenSecret, createdAt: createdAt,
            expiresAt: expiresAt, deviceResultCode: deviceResultCode, resultDelivery: resultDelivery ?? nil)
    }
}
