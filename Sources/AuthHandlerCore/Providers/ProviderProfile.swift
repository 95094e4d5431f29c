import AuthHandlerHTTP

/// Who signed in, as the provider describes them (HTTP-API.md §3.3 `profile`).
package struct ProviderProfile: Sendable, Hashable, Codable {
    /// The provider's stable user id (`sub`, Twitter `id_str`, GitHub `id`, Facebook `id`).
    package var id: String
    /// A handle where the provider has one (Twitter `screen_name`, GitHub `login`).
    package var screenName: String?
    package var displayName: String?
    /// The e-mail address, only when the provider says it is verified (or gives it as the account's own).
    package var email: String?
    /// The provider's profile document(s) as received, for apps that need more.
    package var raw: JSONValue = .object([:])

    enum CodingKeys: String, CodingKey {
        case id, screenName, displayName, email, raw
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeMembers([
            .id: id, .screenName: screenName, .displayName: displayName, .email: email, .raw: raw,
        ])
    }
}
