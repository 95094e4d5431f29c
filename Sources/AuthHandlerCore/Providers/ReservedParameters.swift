import AuthHandlerHTTP
import AuthHandlerProtocols

/// The custom parameters a sign-in may not set, because the handler sets them (HTTP-API.md §3.1).
///
/// They are refused with `reserved-custom-parameter`, never silently dropped. A name outside
/// `[A-Za-z0-9._~-]` (or empty) is refused too, as `invalid-request`: such a name could be read
/// differently by the IdP after encoding and decoding than it is compared here.
///
/// Names are compared ASCII case-insensitively, in both families. RFC 6749 and RFC 5849 §3.1 make
/// parameter names case-sensitive, so a strict IdP would treat `State` as a different parameter, but
/// not every IdP is strict: frameworks such as ASP.NET look query keys up case-insensitively, and there
/// `State`, `Code_Challenge_Method` or `OAuth_Token` could override or duplicate a value the handler
/// relies on for CSRF and PKCE protection. No genuine provider parameter differs from a reserved name
/// only by case, so refusing the variants costs nothing and closes that gap.
package enum ReservedParameters {
    /// Which list applies: OAuth 2 and OpenID Connect share one; OAuth 1.0a reserves its prefix.
    package enum ProtocolFamily: Sendable, Hashable, CaseIterable {
        /// OAuth 2 and OpenID Connect providers.
        case oauth2
        /// OAuth 1.0a providers.
        case oauth1
    }

    /// A refused custom parameter; names are spelled as the caller gave them.
    package enum Violation: Error, Sendable, Equatable, CustomStringConvertible {
        /// The name is one the handler sets itself for `family` (error code `reserved-custom-parameter`).
        case reserved(name: String, family: ProtocolFamily)
        /// The name is empty or has a character outside `[A-Za-z0-9._~-]` (error code `invalid-request`).
        case invalidName(String)

        /// The refused parameter name.
        package var name: String {
            switch self {
            case .reserved(let name, _): name
            case .invalidName(let name): name
            }
        }

        /// What to do instead, e.g. "use the scopes parameter instead of scope".
        package var advice: String {
            switch self {
            case .reserved(let name, let family): ReservedParameters.advice(for: name, family: family)
            case .invalidName: "use only letters, digits and . _ ~ - in custom parameter names"
            }
        }

        package var description: String {
            switch self {
            case .reserved(let name, let family):
                let owner = family == .oauth1 ? "OAuth 1.0a" : "OAuth 2 / OpenID Connect"
                return "the custom parameter \"\(name)\" is reserved for \(owner) providers: \(advice)"
            case .invalidName(let name):
                if name.isEmpty { return "a custom parameter has an empty name; \(advice)" }
                return "the custom parameter name \"\(ReservedParameters.printable(name))\" is not allowed; \(advice)"
            }
        }
    }

    /// The OAuth 2 / OpenID Connect names the handler sets itself, in the order HTTP-API.md §3.1 lists them.
    package static let oauth2Names: [String] = [
        "client_id", "redirect_uri", "response_type", "scope", "state", "code_challenge", "code_challenge_method",
        "nonce", "response_mode", "request", "request_uri",
    ]

    /// The OAuth 1.0a protocol-parameter prefix: every `oauth_*` name is reserved (RFC 5849 §3.5).
    package static let oauth1Prefix = "oauth_"

    /// True when `name` may not be a custom parameter for `family`.
    package static func isReserved(_ name: String, for family: ProtocolFamily) -> Bool {
        switch family {
        case .oauth2:
            oauth2Names.contains { equalsIgnoringASCIICase(name.utf8, $0.utf8) }
        case .oauth1:
            name.utf8.count >= oauth1Prefix.utf8.count
                && equalsIgnoringASCIICase(name.utf8.prefix(oauth1Prefix.utf8.count), oauth1Prefix.utf8)
        }
    }

    /// True when `name` is non-empty and made only of RFC 3986 §2.3 unreserved characters
    /// (`[A-Za-z0-9._~-]`), which every IdP reads the same way, encoded or not.
    package static func isWellFormed(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
                    UInt8(ascii: "-"):
                    true
                default:
                    false
                }
            }
    }

    /// Throws for the first refused name (malformed or reserved) in ascending byte order, so the answer
    /// does not depend on the order the names arrived in (a JSON object has none).
    package static func validate(names: some Sequence<String>, for family: ProtocolFamily) throws(Violation) {
        let refused = names.filter { !isWellFormed($0) || isReserved($0, for: family) }
        guard let first = refused.min(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) else { return }
        if !isWellFormed(first) { throw .invalidName(first) }
        throw .reserved(name: first, family: family)
    }

    /// Validates the names of a `customParameters` object.
    package static func validate(_ customParameters: [String: String], for family: ProtocolFamily) throws(Violation) {
        try validate(names: customParameters.keys, for: family)
    }

    /// Validates the names of ordered custom parameters (e.g. repeated `--param K=V`).
    package static func validate(_ customParameters: [URLFormField], for family: ProtocolFamily) throws(Violation) {
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
        case "request", "request_uri":
            "a request object would override the parameters the handler sets (OpenID Connect Core §6); remove it"
        default: "remove it"
        }
    }

    /// `name` shortened to 64 characters with anything but printable ASCII escaped, for a message.
    static func printable(_ name: String) -> String {
        var text = ""
        for scalar in name.unicodeScalars.prefix(64) {
            if scalar.value >= 0x20 && scalar.value < 0x7f && scalar != "\"" && scalar != "\\" {
                text.unicodeScalars.append(scalar)
            } else {
                text += "\\u{" + String(scalar.value, radix: 16) + "}"
            }
        }
        return name.unicodeScalars.count > 64 ? text + "..." : text
    }

    private static func equalsIgnoringASCIICase(_ left: some Sequence<UInt8>, _ right: some Sequence<UInt8>) -> Bool {
        left.elementsEqual(right) { lowercased($0) == lowercased($1) }
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 0x20 : byte
    }
}
