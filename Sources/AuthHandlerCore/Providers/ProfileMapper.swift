import AuthHandlerHTTP

/// Turns provider answers into a `ProviderProfile`; `raw` keeps the documents as received.
///
/// E-mail policy (HTTP-API.md §3.3): an address is reported only when the provider vouches for it.
/// - OIDC and generic OAuth 2 and OAuth 1.0a: only with `email_verified` true (JSON `true`, or Apple's string
///   `"true"`). An absent `email_verified` drops the address: OIDC Core §5.1 leaves it unverified, and Microsoft's
///   `email` claim, which comes without `email_verified`, is user-editable (the "nOAuth" account-takeover class).
/// - GitHub: the `/user/emails` entry that is both `primary` and `verified`; without that list, none
///   (the `/user` `email` is the public profile address, not proof of ownership).
/// - `trustsEmail` (Twitter and Facebook, which only return a confirmed address, by the catalogue; a custom
///   provider's `trustEmail`): `email` without a verified flag, unless the document says `email_verified` false.
package enum ProfileMapper {
    /// Longest user id accepted.
    package static let maximumIdentifierLength = 255

    /// Maps a document with `mapping`; OIDC and GitHub take a second document (`userInfo`, `/user/emails`).
    /// `trustsEmail` is the provider's ``ProviderDescriptor/trustsEmail``.
    package static func profile(
        _ mapping: ProfileMapping, document: JSONValue, secondary: JSONValue? = nil,
        accessTokenFields: [URLFormField] = [], trustsEmail: Bool
    ) throws(ProfileMappingError) -> ProviderProfile {
        switch mapping {
        case .twitter: try twitter(document, accessTokenFields: accessTokenFields, trustsEmail: trustsEmail)
        case .oidc: try oidc(claims: document, userInfo: secondary, trustsEmail: trustsEmail)
        case .github: try github(user: document, emails: secondary)
        case .facebook: try facebook(document, trustsEmail: trustsEmail)
        case .oauth2UserInfo: try oauth2UserInfo(document, trustsEmail: trustsEmail)
        }
    }

    /// Twitter `account/verify_credentials.json`: `id_str`, `screen_name`, `name`, `email`.
    ///
    /// `id_str` is preferred: Twitter ids exceed 2^53, so the numeric `id` may have lost digits in JSON.
    /// For a custom OAuth 1.0a provider without a profile document, the access-token answer's
    /// `user_id` and `screen_name` are used.
    package static func twitter(
        _ document: JSONValue?, accessTokenFields: [URLFormField] = [], trustsEmail: Bool = false
    )
        throws(ProfileMappingError) -> ProviderProfile
    {
        let source = "OAuth 1.0a profile (verify_credentials)"
        if let document, document.objectValue == nil { throw .notAnObject(source: source) }
        let id =
            identifier(document?["id_str"]) ?? identifier(document?["id"])
            ?? identifier(accessTokenFields.first(named: "user_id").map(JSONValue.string))
        guard let id else { throw .missingIdentifier(source: source, fields: ["id_str", "id", "user_id"]) }
        return ProviderProfile(
            id: id,
            screenName: text(document?["screen_name"]) ?? accessTokenFields.first(named: "screen_name"),
            displayName: text(document?["name"]),
            email: document.flatMap { vouchedEmail($0, trustsEmail: trustsEmail) },
            raw: document ?? .object([:]))
    }

    /// OpenID Connect: `sub`, `preferred_username`, `name`, `email` (verified only) from the validated
    /// ID-token claims, completed by userinfo, whose `sub` must be the same.
    package static func oidc(claims: JSONValue, userInfo: JSONValue? = nil, trustsEmail: Bool = false)
        throws(ProfileMappingError) -> ProviderProfile
    {
        guard claims.objectValue != nil else { throw .notAnObject(source: "ID token claims") }
        guard let sub = identifier(claims["sub"]) else {
            throw .missingIdentifier(source: "ID token claims", fields: ["sub"])
        }
        if let userInfo {
            guard userInfo.objectValue != nil else { throw .notAnObject(source: "userinfo") }
            guard let userSub = userInfo["sub"]?.stringValue, userSub.utf8.elementsEqual(sub.utf8) else {
                throw .subjectMismatch
            }
        }
        let email =
            vouchedEmail(claims, trustsEmail: trustsEmail)
            ?? userInfo.flatMap { vouchedEmail($0, trustsEmail: trustsEmail) }
        var raw: [String: JSONValue] = ["claims": claims]
        if let userInfo { raw["userinfo"] = userInfo }
        return ProviderProfile(
            id: sub,
            screenName: text(claims["preferred_username"]) ?? text(userInfo?["preferred_username"]),
            displayName: text(claims["name"]) ?? text(userInfo?["name"]), email: email, raw: .object(raw))
    }

    /// GitHub `/user` (`id` number as a string, `login`, `name`) and `/user/emails` (primary and verified).
    package static func github(user: JSONValue, emails: JSONValue? = nil) throws(ProfileMappingError)
        -> ProviderProfile
    {
        guard user.objectValue != nil else { throw .notAnObject(source: "GitHub /user") }
        guard let id = identifier(user["id"]) else {
            throw .missingIdentifier(source: "GitHub /user", fields: ["id"])
        }
        let primary = emails?.arrayValue?.first { entry in
            entry["primary"]?.boolValue == true && entry["verified"]?.boolValue == true
        }
        var raw: [String: JSONValue] = ["user": user]
        if let emails { raw["emails"] = emails }
        return ProviderProfile(
            id: id, screenName: text(user["login"]), displayName: text(user["name"]),
            email: text(primary?["email"]), raw: .object(raw))
    }

    /// Facebook Graph `/me?fields=id,name,email`.
    package static func facebook(_ document: JSONValue, trustsEmail: Bool = false) throws(ProfileMappingError)
        -> ProviderProfile
    {
        guard document.objectValue != nil else { throw .notAnObject(source: "Facebook /me") }
        guard let id = identifier(document["id"]) else {
            throw .missingIdentifier(source: "Facebook /me", fields: ["id"])
        }
        return ProviderProfile(
            id: id, displayName: text(document["name"]), email: vouchedEmail(document, trustsEmail: trustsEmail),
            raw: document)
    }

    /// A generic OAuth 2 user document: `sub` or `id`, `preferred_username` / `login` / `username`, `name`, `email`.
    package static func oauth2UserInfo(_ document: JSONValue, trustsEmail: Bool = false) throws(ProfileMappingError)
        -> ProviderProfile
    {
        let source = "OAuth 2 user-info"
        guard document.objectValue != nil else { throw .notAnObject(source: source) }
        guard let id = identifier(document["sub"]) ?? identifier(document["id"]) else {
            throw .missingIdentifier(source: source, fields: ["sub", "id"])
        }
        return ProviderProfile(
            id: id,
            screenName: text(document["preferred_username"]) ?? text(document["login"])
                ?? text(document["username"]),
            displayName: text(document["name"]), email: vouchedEmail(document, trustsEmail: trustsEmail), raw: document)
    }

    /// A document's `email` when `email_verified` is true (JSON `true` or the string `"true"`); when the document has
    /// no such flag (absent, `null`, another value), only for a provider that `trustsEmail`; never when it is false.
    private static func vouchedEmail(_ document: JSONValue, trustsEmail: Bool) -> String? {
        let verified: Bool
        switch document["email_verified"] {
        case .bool(let value): verified = value
        case .string("true"): verified = true
        case .string("false"): verified = false
        default: verified = trustsEmail
        }
        return verified ? text(document["email"]) : nil
    }

    /// A user id: a string or an integer, non-empty, at most 255 bytes, no control characters.
    private static func identifier(_ value: JSONValue?) -> String? {
        guard let id = value?.identifierString, !id.isEmpty, id.utf8.count <= maximumIdentifierLength,
            !id.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F })
        else { return nil }
        return id
    }

    /// A non-empty string member, or nil.
    private static func text(_ value: JSONValue?) -> String? {
        guard let string = value?.stringValue, !string.isEmpty else { return nil }
        return string
    }
}
