/// Why a provider's answer could not be turned into a `ProviderProfile`.
package enum ProfileMappingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The document is not a JSON object; `source` names it (e.g. "GitHub /user").
    case notAnObject(source: String)
    /// None of `fields` holds a usable user id (a non-empty string, or an integer, of at most 255 bytes).
    case missingIdentifier(source: String, fields: [String])
    /// The userinfo `sub` differs from the ID token's `sub` (OIDC Core §5.3.2): the answers are about two users.
    case subjectMismatch

    package var description: String {
        switch self {
        case .notAnObject(let source):
            "the \(source) answer is not a JSON object; check the provider's profile endpoint"
        case .missingIdentifier(let source, let fields):
            "the \(source) answer has no usable user id in \(fields.joined(separator: " or ")); "
                + "check that the endpoint is the provider's profile API and the scopes allow it"
        case .subjectMismatch:
            "the userinfo sub does not match the ID token's sub; the answers were refused (OIDC Core §5.3.2)"
        }
    }
}
