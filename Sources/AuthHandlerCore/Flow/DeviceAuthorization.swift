import AuthHandlerCrypto
import AuthHandlerHTTP
import Foundation

/// The records of a device sign-in (HTTP-API.md §3.9), each kept in the store's `DeviceStore` under a key the store
/// only ever sees as a SHA-256 and with a payload sealed so that a copy of the store reveals no usable code:
///
/// - ``DeviceGrant``, what the polling device finds by its device code: the `grant` record under `device:` + the
///   device code, sealed with ``ResultSeal`` under the device code.
/// - ``DeviceRequest``, what the browser finds by the user code: the `request` record under `device-user:` + an HMAC
///   of the user code under the state key (a user code has only 35 bits, so a plain digest could be searched),
///   sealed under the state key ring.
/// - The result, under the device's result code (``resultCode(deviceCode:)``), a result of the `SessionStore` sealed
///   as every result is; the decline or failure, if any, the `decision` record under `device-decision:` + the result
///   code.
/// - Once the confirmation form was answered, the decision of `device-used:` + the result code (`decideOnce`), which
///   the confirmation page reads (`isDecided`) to say the code was used.
package enum DeviceAuthorization {
    /// RFC 8628 §6.1: consonants only, no vowels (no words) and no look-alikes.
    static let userCodeAlphabet = Array("BCDFGHJKLMNPQRSTVWXZ")
    static let userCodeLength = 8
    /// RFC 8628 §3.4's `grant_type`.
    package static let grantType = "urn:ietf:params:oauth:grant-type:device_code"

    /// A fresh user code of 8 letters (34.6 bits).
    static func makeUserCode() throws(CryptoError) -> String {
        var code: [Character] = []
        while code.count < userCodeLength {
            for byte in try SecureRandom.bytes(16) where code.count < userCodeLength {
                // 240 = 12 × 20: draws at or above it would favour the first letters.
                if byte < 240 { code.append(userCodeAlphabet[Int(byte) % userCodeAlphabet.count]) }
            }
        }
        return String(code)
    }

    /// A user code as a person typed it, with case and dashes (and spaces) ignored; nil when it cannot be one.
    static func normalizedUserCode(_ typed: String) -> String? {
        let kept = typed.uppercased().filter { $0 != "-" && $0 != " " }
        guard kept.count == userCodeLength, kept.allSatisfy({ userCodeAlphabet.contains($0) }) else { return nil }
        return kept
    }

    /// The code as shown: two groups of four letters, such as `BCDF-GHJK` (RFC 8628 §6.1).
    static func displayed(_ userCode: String) -> String {
        String(userCode.prefix(4)) + "-" + String(userCode.dropFirst(4))
    }

    /// The code the result is kept under, derived from the device code (256 random bits) so that only whoever holds
    /// the device code can find it.
    static func resultCode(deviceCode: String) throws(CryptoError) -> String {
        Base64.urlEncode(
            try HKDF.sha256(
                inputKeyMaterial: Array(deviceCode.utf8), salt: Array("auth-handler device v1".utf8),
                info: Array("result code".utf8), length: 32))
    }

    /// The store key of a device code's grant. The keys keep the prefixes they had when every record shared the
    /// session store's result codes: the decision's is also the code its payload is sealed under.
    static func grantKey(deviceCode: String) -> String { "device:" + deviceCode }

    /// The store key of the decision (decline, cancellation, failure) for a result code.
    static func decisionKey(resultCode: String) -> String { "device-decision:" + resultCode }

    /// The decision key (`DeviceStore.decideOnce`) that lets a user code be confirmed or declined once.
    static func usedKey(resultCode: String) -> String { "device-used:" + resultCode }

    /// The store keys a user code may be under: its HMAC under a key derived from the current state key, then from
    /// each previous one.
    static func requestKeys(userCode: String, keys: StateKeyRing) -> [String] {
        ([keys.current] + keys.previous).compactMap { key in
            mac(Array(userCode.utf8), stateKey: key, purpose: "user code").map { "device-user:" + $0 }
        }
    }

    /// HMAC-SHA256 of `message` under a key derived by HKDF-SHA256 from `stateKey` for `purpose`: the state key
    /// itself is an AES-256-GCM key, and one key serves one algorithm.
    static func mac(_ message: [UInt8], stateKey: [UInt8], purpose: String) -> String? {
        guard
            let key = try? HKDF.sha256(
                inputKeyMaterial: stateKey, salt: Array("auth-handler device v1".utf8), info: Array(purpose.utf8),
                length: 32),
            let code = try? HMAC.sha256(key: key, message: message)
        else { return nil }
        return Base64.urlEncode(code)
    }

    /// The sealing context of ``DeviceRequest``s under the state key ring.
    static let requestContext = "auth-handler device request"
}

/// What the polling device's code finds.
struct DeviceGrant: Sendable {
    var expiresAt: Date
    var interval: Int
    /// The ID token a link or reauth presented when it asked (HTTP-API.md §3.3's `idToken`).
    var idToken: String?
}

/// What the user code finds: the request the confirmation page describes and "Continue" starts.
struct DeviceRequest: Sendable {
    var providerID: String
    var scopes: [String]
    var customParameters: String?
    var authType: AuthType
    var resultChallenge: String?
    /// The address that asked, shown on the confirmation page.
    var client: String
    var createdAt: Date
    var expiresAt: Date
    var resultCode: String
}

/// A device sign-in that ended without a result.
struct DeviceDecision: Sendable {
    enum Outcome: String, Sendable {
        /// "Cancel" on the confirmation page.
        case declined
        /// Cancelled at the provider.
        case cancelled
        /// The provider or the handler failed.
        case failed
    }

    var outcome: Outcome
    var message: String
}

/// The device records' sealed JSON: member names and dates (seconds since 2001-01-01) as `JSONEncoder` wrote them in
/// earlier releases, so records they stored still open (`DeviceRecordJSONTests` keeps one of each).
extension DeviceGrant: JSONWritable, JSONReadable {
    var json: JSONValue {
        var members: [String: JSONValue] = [
            "expiresAt": .number(expiresAt.timeIntervalSinceReferenceDate), "interval": .integer(Int64(interval)),
        ]
        if let idToken { members["idToken"] = .string(idToken) }
        return .object(members)
    }

    init?(json: JSONValue) {
        guard case .object(let members) = json,
            let expiresAt = members["expiresAt"]?.numberValue,
            let interval = members["interval"].optionalInt, let interval,
            let idToken = members["idToken"].optionalString
        else { return nil }
        self.init(
            expiresAt: Date(timeIntervalSinceReferenceDate: expiresAt), interval: interval, idToken: idToken)
    }
}

extension DeviceRequest: JSONWritable, JSONReadable {
    var json: JSONValue {
        var members: [String: JSONValue] = [
            "providerID": .string(providerID), "scopes": .array(scopes.map(JSONValue.string)),
            "authType": .string(authType.rawValue), "client": .string(client),
            "createdAt": .number(createdAt.timeIntervalSinceReferenceDate),
            "expiresAt": .number(expiresAt.timeIntervalSinceReferenceDate), "resultCode": .string(resultCode),
        ]
        let optionals = [("customParameters", customParameters), ("resultChallenge", resultChallenge)]
        for case (let name, let value?) in optionals { members[name] = .string(value) }
        return .object(members)
    }

    /// The request in `json`; nil when a member is missing or of the wrong type, as `JSONDecoder` refused it.
    init?(json: JSONValue) {
        guard case .object(let members) = json,
            let providerID = members["providerID"]?.stringValue,
            let scopeValues = members["scopes"]?.arrayValue,
            let customParameters = members["customParameters"].optionalString,
            let authType = members["authType"]?.stringValue.flatMap(AuthType.init(rawValue:)),
            let resultChallenge = members["resultChallenge"].optionalString,
            let client = members["client"]?.stringValue,
            let createdAt = members["createdAt"]?.numberValue,
            let expiresAt = members["expiresAt"]?.numberValue,
            let resultCode = members["resultCode"]?.stringValue
        else { return nil }
        let scopes = scopeValues.compactMap(\.stringValue)
        guard scopes.count == scopeValues.count else { return nil }
        self.init(
            providerID: providerID, scopes: scopes, customParameters: customParameters, authType: authType,
            resultChallenge: resultChallenge, client: client,
            createdAt: Date(timeIntervalSinceReferenceDate: createdAt),
            expiresAt: Date(timeIntervalSinceReferenceDate: expiresAt), resultCode: resultCode)
    }
}

extension DeviceDecision: JSONWritable, JSONReadable {
    var json: JSONValue { .object(["outcome": .string(outcome.rawValue), "message": .string(message)]) }

    init?(json: JSONValue) {
        guard let outcome = json["outcome"]?.stringValue.flatMap(Outcome.init(rawValue:)),
            let message = json["message"]?.stringValue
        else { return nil }
        self.init(outcome: outcome, message: message)
    }
}

/// The `200` answer of `POST /__/auth/device` (RFC 8628 §3.2): the server writes it, `login` reads it.
package struct DeviceIssue: Sendable, Equatable {
    package var deviceCode: String
    /// Two groups of four letters, such as `BCDF-GHJK`.
    package var userCode: String
    package var verificationURI: String
    /// Always sent by this server; optional in RFC 8628 §3.2, so a reader may find none.
    package var verificationURIComplete: String?
    package var expiresIn: Int
    package var interval: Int

    package var json: JSONValue {
        var members: [String: JSONValue] = [
            "device_code": .string(deviceCode), "user_code": .string(userCode),
            "verification_uri": .string(verificationURI),
            "expires_in": .integer(Int64(expiresIn)), "interval": .integer(Int64(interval)),
        ]
        if let verificationURIComplete { members["verification_uri_complete"] = .string(verificationURIComplete) }
        return .object(members)
    }
}

/// Reading the answer, as `login` does; declared apart so that the memberwise initialiser stays.
extension DeviceIssue {
    /// The interval when the server names none (RFC 8628 §3.2).
    package static let defaultInterval = 5
    /// The lifetime assumed when the server names none.
    package static let defaultExpiresIn = 600

    /// The answer in `json`; nil without `device_code`, `user_code` or `verification_uri`. A missing or unusable
    /// `interval` is `defaultInterval`, a missing `expires_in` `defaultExpiresIn`.
    package init?(json: JSONValue) {
        guard let object = json.objectValue, let deviceCode = object["device_code"]?.stringValue,
            let userCode = object["user_code"]?.stringValue, let uri = object["verification_uri"]?.stringValue
        else { return nil }
        self.init(
            deviceCode: deviceCode, userCode: userCode, verificationURI: uri,
            verificationURIComplete: object["verification_uri_complete"]?.stringValue,
            expiresIn: Self.seconds(object["expires_in"]) ?? Self.defaultExpiresIn,
            interval: Self.seconds(object["interval"]) ?? Self.defaultInterval)
    }

    /// A number of seconds a device answer names (`interval`, `expires_in`): 1 to 3600, else nil.
    package static func seconds(_ value: JSONValue?) -> Int? {
        guard case .integer(let number) = value, number > 0, number <= 3600 else { return nil }
        return Int(number)
    }
}

/// What the confirmation page shows about a device sign-in (HTTP-API.md §3.9): everything "Continue" will ask the
/// provider for, since whoever asked for the code chose it.
package struct DeviceConfirmation: Sendable, Equatable {
    /// Two groups of four letters, such as `BCDF-GHJK`.
    package var userCode: String
    package var providerName: String
    /// Sign in, link to an existing account, or confirm the person's identity.
    package var authType: AuthType
    /// The scopes the provider is configured with (its default scopes, `openid` first for OpenID Connect).
    package var configuredScopes: [String]
    /// The scopes the device added to those: its own words, shown as such.
    package var requestedScopes: [String]
    /// Every custom parameter the start will send the provider, as the device gave it.
    package var customParameters: [URLFormField]
    /// The address the request came from.
    package var client: String
    /// Seconds since it asked.
    package var age: Int
    /// The form's proof, tied to the user code and to this browser's confirmation cookie.
    package var formToken: String
    /// The `Set-Cookie` of that confirmation cookie.
    package var setCookie: String
}

/// What `GET /__/auth/device?user_code=...` shows for a known, unexpired code.
package enum DeviceConfirmationAnswer: Sendable {
    /// The confirmation page, with its form.
    case confirm(DeviceConfirmation)
    /// The code was already continued or cancelled: a page that says so, without a form.
    case alreadyDecided(userCode: String)
}

/// How the confirmation form was answered.
package enum DeviceDecisionAnswer: Sendable {
    /// "Continue": send the browser to the provider, with the pending sign-in's cookie.
    case started(StartAnswer)
    /// "Cancel": the device will be told `access_denied`.
    case declined
}

/// How a poll of `POST /__/auth/device/token` is answered.
package enum DeviceTokenAnswer: Sendable {
    /// `200` with the result, exactly as `/__/auth/result` answers it.
    case delivered(RedemptionAnswer)
    /// An RFC 6749 §5.2 error; `interval` with `slow_down` (the code's new interval).
    case refused(error: String, description: String, status: Int, interval: Int?)
}

/// Where the browser lands after a device sign-in's callback.
package enum DeviceDoneOutcome: String, Sendable, CaseIterable {
    case signedIn = "signed-in"
    case cancelled
    case failed
}
