import AuthHandlerHTTP
import Foundation

/// A stored result's JSON, read and written through `JSONValue` rather than `JSONEncoder` and `JSONDecoder`.
///
/// Why: the profile carries the provider's claims as a `JSONValue`, and through `Codable` each of its members costs an
/// encoder or decoder of its own; writing and reading the result that way was a quarter of a complete sign-in's CPU
/// time (BENCHMARKS.md). The text is the same JSON the synthesized `Codable` conformance reads and writes (same
/// member names, `createdAt` as seconds since 2001-01-01 like `JSONEncoder`'s default date strategy, absent members
/// and `null` alike for a missing optional), so results written by either form open in the other.
extension StoredResult {
    /// The result as the JSON object that is sealed and stored.
    var json: JSONValue {
        var members: [String: JSONValue] = [
            "providerID": .string(providerID), "authType": .string(authType.rawValue),
            "credential": .object(Self.members(of: credential)),
            "profile": .object(Self.members(of: profile)), "requestURI": .string(requestURI),
            "createdAt": .number(createdAt.timeIntervalSinceReferenceDate),
        ]
        if let eventID { members["eventID"] = .string(eventID) }
        if let resultChallenge { members["resultChallenge"] = .string(resultChallenge) }
        return .object(members)
    }

    /// The result in `json`; nil when a member is missing or of the wrong type.
    init?(json: JSONValue) {
        guard case .object(let members) = json,
            let providerID = members["providerID"]?.stringValue,
            let authType = members["authType"]?.stringValue.flatMap(AuthType.init(rawValue:)),
            let eventID = Self.optionalString(members["eventID"]),
            let resultChallenge = Self.optionalString(members["resultChallenge"]),
            let credential = members["credential"].flatMap(Self.credential),
            let profile = members["profile"].flatMap(Self.profile),
            let requestURI = members["requestURI"]?.stringValue,
            let createdAt = members["createdAt"]?.numberValue
        else { return nil }
        self.init(
            providerID: providerID, authType: authType, eventID: eventID, resultChallenge: resultChallenge,
            credential: credential, profile: profile, requestURI: requestURI,
            createdAt: Date(timeIntervalSinceReferenceDate: createdAt))
    }

    /// The credential as the result JSON carries it (HTTP-API.md §3.3), absent members `null`.
    static func members(of credential: IdPCredential) -> [String: JSONValue] {
        [
            "accessToken": nullable(credential.accessToken), "secret": nullable(credential.secret),
            "idToken": nullable(credential.idToken), "refreshToken": nullable(credential.refreshToken),
            "expiresIn": credential.expiresIn.map { .integer(Int64($0)) } ?? .null,
            "scope": nullable(credential.scope), "nonce": nullable(credential.nonce),
        ]
    }

    /// The profile as the result JSON carries it (HTTP-API.md §3.3), absent members `null`.
    static func members(of profile: ProviderProfile) -> [String: JSONValue] {
        [
            "id": .string(profile.id), "screenName": nullable(profile.screenName),
            "displayName": nullable(profile.displayName), "email": nullable(profile.email), "raw": profile.raw,
        ]
    }

    private static func credential(_ json: JSONValue) -> IdPCredential? {
        guard case .object(let members) = json,
            let accessToken = optionalString(members["accessToken"]),
            let secret = optionalString(members["secret"]),
            let idToken = optionalString(members["idToken"]),
            let refreshToken = optionalString(members["refreshToken"]),
            let expiresIn = optionalInt(members["expiresIn"]),
            let scope = optionalString(members["scope"]),
            let nonce = optionalString(members["nonce"])
        else { return nil }
        return IdPCredential(
            accessToken: accessToken, secret: secret, idToken: idToken, refreshToken: refreshToken,
            expiresIn: expiresIn, scope: scope, nonce: nonce)
    }

    private static func profile(_ json: JSONValue) -> ProviderProfile? {
        guard case .object(let members) = json,
            let id = members["id"]?.stringValue,
            let screenName = optionalString(members["screenName"]),
            let displayName = optionalString(members["displayName"]),
            let email = optionalString(members["email"]),
            let raw = members["raw"]
        else { return nil }
        return ProviderProfile(id: id, screenName: screenName, displayName: displayName, email: email, raw: raw)
    }

    static func nullable(_ value: String?) -> JSONValue {
        value.map(JSONValue.string) ?? .null
    }

    /// `.some(nil)` for an absent or `null` member, `.some(text)` for a string, nil (refused) for anything else.
    private static func optionalString(_ value: JSONValue?) -> String?? {
        switch value {
        case nil, .null?: .some(nil)
        case .string(let text)?: .some(text)
        default: nil
        }
    }

    /// As `optionalString`, for a whole number that fits in an `Int`.
    private static func optionalInt(_ value: JSONValue?) -> Int?? {
        switch value {
        case nil, .null?: .some(nil)
        case .integer(let number)?: Int(exactly: number).map { .some($0) }
        default: nil
        }
    }
}

/// The redemption answer's JSON (HTTP-API.md §3.3), written through `JSONValue` rather than `JSONEncoder` for the reason
/// the stored result is: every member present, `null` when absent, members sorted by name as `JSONEncoder`'s
/// `sortedKeys` wrote them, slashes not escaped.
extension RedemptionAnswer {
    /// The answer as the JSON object `POST /__/auth/result` returns.
    var json: JSONValue {
        .object([
            "providerId": .string(providerId), "authType": .string(authType.rawValue),
            "eventId": StoredResult.nullable(eventId), "credential": .object(StoredResult.members(of: credential)),
            "profile": .object(StoredResult.members(of: profile)), "signIn": signIn ?? .null,
        ])
    }
}
