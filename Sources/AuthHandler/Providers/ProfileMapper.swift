/// Turns provider answers into a `ProviderProfile`; `raw` keeps the documents as received.
///
/// E-mail policy: an address is reported only when the provider vouches for it.
/// - OIDC: only with `email_verified` true (JSON `true`, or Apple's string `"true"`). An absent
///   `email_verified` drops the address: OIDC Core §5.1 leaves it unverified, and Microsoft's `email`
///   claim, which comes without `email_verified`, is user-editable (the "nOAuth" account-takeover class).
/// - GitHub: the `/user/emails` entry that is both `primary` and `verified`; without that list, none
///   (the `/user` `email` is the public profile address, not proof of ownership).
/// - Twitter, Facebook: their `email`, which both only return for a confirmed address.
/// - Generic OAuth 2: `email`, unless the document says `email_verified` false.
public enum ProfileMapper {
    /// Longest user id accepted.
    public static let maximumIdentifierLength = 255

    /// Maps a document with `mapping`; OIDC and GitHub take a second document (`userInfo`, `/user/emails`).
    public static func profile(
        _ mapping: ProfileMapping, document: JSONValue, secondary: JSONValue? = nil,
        accessTokenFields: [URLFormField] = []
    ) throws(ProfileMappingError) -> ProviderProfile {
        switch mapping {
        case .twitter: try twitter(document, accessTokenFields: accessTokenFields)
        case .oidc: try oidc(claims: document, userInfo: secondary)
        case .github: try github(user: document, emails: secondary)
        case .facebook: try facebook(document)
        case .oauth2UserInfo: try oauth2UserInfo(document)
        }
    }

    /// Twitter `account/verify_credentials.json`: `id_str`, `screen_name`, `name`, `email`.
    ///
    /// `id_str` is preferred: Twitter ids exceed 2^53, so the numeric `id` may have lost digits in JSON.
    /// For a custom OAuth 1.0a provider without a profile document, the access-token answer's
    /// `user_id` and `screen_name` are used.
    public static func twitter(_ document: JSONValue?, accessTokenFields: [URLFormField] = [])
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
            displayName: text(document?["name"]), email: text(document?["email"]),
            raw: document ?? .object([:]))
    }

    /// OpenID Connect: `sub`, `preferred_username`, `name`, `email` (verified only) from the validated
    /// ID-token claims, completed by userinfo, whose `sub` must be the same.
    public static func oidc(claims: JSONValue, userInfo: JSONValue? = nil) throws(ProfileMappingError)
        -> ProviderProfile
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
        let email = verifiedOIDCEmail(claims) ?? userInfo.flatMap(verifiedOIDCEmail)
        var raw: [String: JSONValue] = ["claims": claims]
        if let userInfo { raw["userinfo"] = userInfo }
        return ProviderProfile(
            id: sub,
            screenName: text(claims["preferred_username"]) ?? text(userInfo?["preferred_username"]),
            displayName: text(claims["name"]) ?? text(userInfo?["name"]), email: email, raw: .object(raw))
    }

    /// GitHub `/user` (`id` number as a string, `login`, `name`) and `/user/emails` (primary and verified).
    public static func github(user: JSONValue, emails: JSONValue? = nil) throws(ProfileMappingError)
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
    public static func facebook(_ document: JSONValue) throws(ProfileMappingError) -> ProviderProfile {
        guard document.objectValue != nil else { throw .notAnObject(source: "Facebook /me") }
        guard let id = identifier(document["id"]) else {
            throw .missingIdentifier(source: "Facebook /me", fields: ["id"])
        }
        return ProviderProfile(
            id: id, displayName: text(document["name"]), email: text(document["email"]), raw: document)
    }

    /// A generic OAuth 2 user document: `sub` or `id`, `preferred_username` / `login` / `username`, `name`, `email`.
    public static func oauth2UserInfo(_ document: JSONValue) throws(ProfileMappingError) -> ProviderProfile {
        let source = "OAuth 2 user-info"
        guard document.objectValue != nil else { throw .notAnObject(source: source) }
        guard let id = identifier(document["sub"]) ?? identifier(document["id"]) else {
            throw .missingIdentifier(source: source, fields: ["sub", "id"])
        }
        let refused = isFalse(document["email_verified"])
        return ProviderProfile(
            id: id,
            screenName: text(document["preferred_username"]) ?? text(document["login"])
                ?? text(document["username"]),
            displayName: text(document["name"]), email: refused ? nil : text(document["email"]), raw: document)
    }

    /// The `email` of an OIDC claims set or userinfo document when `email_verified` is true.
    private static func verifiedOIDCEmail(_ document: JSONValue) -> String? {
        let verified: Bool
        switch document["email_verified"] {
        case .bool(let value): verified = value
        case .string(let value): verified = value == "true"
        default: verified = false
        }
        return verified ? text(document["email"]) : nil
    }

    private static func isFalse(_ value: JSONValue?) -> Bool {
        switch value {
        case .bool(let flag): !flag
        case .string(let flag): flag == "false"
        default: false
        }
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
