import AuthHandlerHTTP
import Foundation

/// A stored result's JSON, read and written through `JSONValue` (``JSONWritable``, ``JSONReadable``).
///
/// Why not `Codable`: the profile carries the provider's claims as a `JSONValue`, and through `Codable` each of its
/// members costs an encoder or decoder of its own; writing and reading the result that way was a quarter of a complete
/// sign-in's CPU time (BENCHMARKS.md). The text is the JSON earlier releases sealed with `JSONEncoder` (same member
/// names, `createdAt` as seconds since 2001-01-01 like its default date strategy, absent members and `null` alike for
/// a missing optional), so results they stored still open (`FlowStoredResultTests` keeps one).
extension StoredResult: JSONWritable, JSONReadable {
    /// The result as the JSON object that is sealed and stored.
    var json: JSONValue {
        var members: [String: JSONValue] = [
            "providerID": .string(providerID), "authType": .string(authType.rawValue), "credential": credential.json,
            "profile": profile.json, "requestURI": .string(requestURI),
            "createdAt": .number(createdAt.timeIntervalSinceReferenceDate),
        ]
        if let eventID { members["eventID"] = .string(eventID) }
        if let resultChallenge { members["resultChallenge"] = .string(resultChallenge) }
        if let account {
            members["account"] = .object([
                "localId": .string(account.localID), "method": .string(account.method),
                "authTime": .number(account.authTime.timeIntervalSinceReferenceDate),
                "isNewUser": .bool(account.isNewUser),
            ])
        }
        return .object(members)
    }

    /// The result in `json`; nil when a member is missing or of the wrong type.
    init?(json: JSONValue) {
        guard case .object(let members) = json,
            let providerID = members["providerID"]?.stringValue,
            let authType = members["authType"]?.stringValue.flatMap(AuthType.init(rawValue:)),
            let eventID = members["eventID"].optionalString,
            let resultChallenge = members["resultChallenge"].optionalString,
            let credential = members["credential"].flatMap(IdPCredential.init(json:)),
            let profile = members["profile"].flatMap(ProviderProfile.init(json:)),
            let requestURI = members["requestURI"]?.stringValue,
            let createdAt = members["createdAt"]?.numberValue
        else { return nil }
        var account: AccountResult?
        if let value = members["account"] {
            guard case .object(let fields) = value, let localID = fields["localId"]?.stringValue,
                let method = fields["method"]?.stringValue, let authTime = fields["authTime"]?.numberValue,
                case .bool(let isNewUser)? = fields["isNewUser"]
            else { return nil }
            account = AccountResult(
                localID: localID, method: method, authTime: Date(timeIntervalSinceReferenceDate: authTime),
                isNewUser: isNewUser)
        }
        self.init(
            providerID: providerID, authType: authType, eventID: eventID, resultChallenge: resultChallenge,
            credential: credential, profile: profile, requestURI: requestURI,
            createdAt: Date(timeIntervalSinceReferenceDate: createdAt), account: account)
    }

    /// The credential as the result JSON carries it (HTTP-API.md §3.3), absent members `null`.
    static func members(of credential: IdPCredential) -> [String: JSONValue] { credential.members }
}

/// The redemption answer's JSON (HTTP-API.md §3.3): every member present, `null` when absent; written with its
/// members sorted by name.
extension RedemptionAnswer: JSONWritable {
    /// The answer as the JSON object `POST /__/auth/result` returns.
    package var json: JSONValue {
        .object([
            "providerId": .string(providerId), "authType": .string(authType.rawValue), "eventId": .nullable(eventId),
            "credential": credential.json, "profile": profile.json, "signIn": signIn ?? .null,
        ])
    }
}
