/// The custom parameters a sign-in may not set, because the handler sets them (CONTRACT §3.1).
///
/// They are refused with `reserved-custom-parameter`, never silently dropped.
///
/// Names are compared ASCII case-insensitively, in both families. RFC 6749 and RFC 5849 §3.1 make
/// parameter names case-sensitive, so a strict IdP would treat `State` as a different parameter, but
/// not every IdP is strict: frameworks such as ASP.NET look query keys up case-insensitively, and there
/// `State`, `Code_Challenge_Method` or `OAuth_Token` could override or duplicate a value the handler
/// relies on for CSRF and PKCE protection. No genuine provider parameter differs from a reserved name
/// only by case, so refusing the variants costs nothing and closes that gap.
public enum ReservedParameters {
    /// Which list applies: OAuth 2 and OpenID Connect share one; OAuth 1.0a reserves its prefix.
    public enum ProtocolFamily: Sendable, Hashable, CaseIterable {
        /// OAuth 2 and OpenID Connect providers.
        case oauth2
        /// OAuth 1.0a providers.
        case oauth1
    }

    /// A refused custom parameter; `name` is spelled as the caller gave it.
    public struct Violation: Error, Sendable, Equatable, CustomStringConvertible {
        /// The refused parameter name.
        public let name: String
        /// The family whose list reserves it.
        public let family: ProtocolFamily

        /// What to do instead, e.g. "use the scopes parameter instead of scope".
        public var advice: String { ReservedParameters.advice(for: name, family: family) }

        public var description: String {
            let owner = family == .oauth1 ? "OAuth 1.0a" : "OAuth 2 / OpenID Connect"
            return "the custom parameter \"\(name)\" is reserved for \(owner) providers: \(advice)"
        }
    }

    /// The OAuth 2 / OpenID Connect names the handler sets itself, in CONTRACT order.
    public static let oauth2Names: [String] = [
        "client_id", "redirect_uri", "response_type", "scope", "state", "code_challenge", "code_challenge_method",
        "nonce", "response_mode",
    ]

    /// The OAuth 1.0a protocol-parameter prefix: every `oauth_*` name is reserved (RFC 5849 §3.5).
    public static let oauth1Prefix = "oauth_"

    /// True when `name` may not be a custom parameter for `family`.
    public static func isReserved(_ name: String, for family: ProtocolFamily) -> Bool {
        switch family {
        case .oauth2:
            oauth2Names.contains { equalsIgnoringASCIICase(name.utf8, $0.utf8) }
        case .oauth1:
            name.utf8.count >= oauth1Prefix.utf8.count
                && equalsIgnoringASCIICase(name.utf8.prefix(oauth1Prefix.utf8.count), oauth1Prefix.utf8)
        }
    }

    /// Throws for the first reserved name in ascending byte order, so the answer does not depend on
    /// the order the names arrived in (a JSON object has none).
    public static func validate(names: some Sequence<String>, for family: ProtocolFamily) throws(Violation) {
        let refused = names.filter { isReserved($0, for: family) }
        if let first = refused.min(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            throw Violation(name: first, family: family)
        }
    }

    /// Validates the names of a `customParameters` object.
    public static func validate(_ customParameters: [String: String], for family: ProtocolFamily) throws(Violation) {
        try validate(names: customParameters.keys, for: family)
    }

    /// Validates the names of ordered custom parameters (e.g. repeated `--param K=V`).
    public static func validate(_ customParameters: [URLFormField], for family: ProtocolFamily) throws(Violation) {
        try validate(names: customParameters.lazy.map(\.name), for: family)
    }

    static func advice(for name: String, family: ProtocolFamily) -> String {
        if family == .oauth1 {
            return switch name.lowercased() {
            case "oauth_callback": "the handler always sends publicURL + /__/auth/handler as oauth_callback; remove it"
            case "oauth_token": "the handler adds the request token to the authorize URL itself; remove it"
            default: "oauth_* parameters are OAuth 1.0a protocol parameters the handler signs itself; remove it"
            }
        }
        return switch name.lowercased() {
        case "scope": "use the scopes parameter instead of scope"
        case "client_id": "the handler sends the provider's configured clientId; set it in the configuration instead"
        case "redirect_uri": "the handler always sends publicURL + /__/auth/handler; set publicURL instead"
        case "response_type": "the handler always uses the authorization code flow (response_type=code); remove it"
        case "state": "the handler generates state itself; use eventId to correlate the result instead"
        case "code_challenge", "code_challenge_method":
            "the handler always sends its own PKCE S256 challenge; use resultChallenge to bind the result instead"
        case "nonce": "the handler generates the OpenID Connect nonce itself; remove it"
        case "response_mode": "set responseMode in the provider configuration instead"
        default: "remove it"
        }
    }

    private static func equalsIgnoringASCIICase(_ left: some Sequence<UInt8>, _ right: some Sequence<UInt8>) -> Bool {
        left.elementsEqual(right) { lowercased($0) == lowercased($1) }
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 0x20 : byte
    }
}
