import AuthHandlerHTTP

/// Who signed in, as the provider describes them (HTTP-API.md §3.3 `profile`).
package struct ProviderProfile: Sendable, Hashable {
    /// The provider's stable user id (`sub`, Twitter `id_str`, GitHub `id`, Facebook `id`).
    package var id: String
    /// A handle where the provider has one (Twitter `screen_name`, GitHub `login`).
    package var screenName: String?
    package var displayName: String?
    /// The e-mail address, only when the provider says it is verified (or gives it as the account's own).
    package var email: String?
    /// The provider's profile document(s) as received, for apps that need more.
    package var raw: JSONValue = .object([:])

}

extension ProviderProfile: JSONWritable, JSONReadable {
    /// The profile as the result JSON carries it (HTTP-API.md §3.3), every member present, absent ones `null`.
    package var json: JSONValue { .object(members) }

    /// The members of ``json``.
    var members: [String: JSONValue] {
        [
            "id": .string(id), "screenName": .nullable(screenName), "displayName": .nullable(displayName),
            "email": .nullable(email), "raw": raw,
        ]
    }

    /// The profile in `json`: absent and `null` optional members alike nil, any member of the wrong type refused.
    package init?(json: JSONValue) {
        guard case .object(let members) = json,
            let id = members["id"]?.stringValue,
            let screenName = members["screenName"].optionalString,
            let displayName = members["displayName"].optionalString,
            let email = members["email"].optionalString,
            let raw = members["raw"]
        else { return nil }
        self.init(id: id, screenName: screenName, displayName: displayName, email: email, raw: raw)
    }
}
