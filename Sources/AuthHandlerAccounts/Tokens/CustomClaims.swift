import AuthHandlerHTTP

/// A user's custom claims (issue 25 §4, Firebase's `setCustomUserClaims`): a JSON object copied into every ID token
/// after the claims the daemon sets, at most 1,000 bytes, and never one of the names the daemon or JWT itself gives
/// a meaning.
package struct CustomClaims: Sendable, Equatable, JSONWritable {
    /// The largest claims object, in bytes of its compact JSON text (Firebase's limit).
    package static let maximumBytes = 1000
    /// The longest text `init(parsing:)` reads before refusing it unread.
    static let maximumInputBytes = 64 * 1024

    /// Names an app may not set: the registered JWT claims (RFC 7519 §4.1), the OpenID Connect ones the daemon
    /// signs or that change how a token is read (OIDC Core §2, §5.1; RFC 7800 `cnf`), and Firebase's own
    /// (`user_id`, `firebase`), so a custom claim can never impersonate a user, widen an audience or fake a session.
    package static let reservedNames: Set<String> = [
        "iss", "sub", "aud", "exp", "nbf", "iat", "jti", "auth_time", "sid", "nonce", "acr", "amr", "azp", "cnf",
        "email", "email_verified", "name", "picture", "user_id", "firebase",
    ]

    /// No custom claims.
    package static let empty = CustomClaims(checked: [:])

    /// The claims, by name.
    package let members: [String: JSONValue]

    /// Why a claims object is refused; the message names the claim, never its value.
    package enum Refusal: Error, Equatable, Sendable, CustomStringConvertible {
        /// The text is not JSON.
        case notJSON
        /// The JSON is an array, a string or another non-object.
        case notAnObject
        /// Its compact JSON text has `bytes` bytes, more than ``CustomClaims/maximumBytes``.
        case tooLarge(bytes: Int)
        /// It sets `name`, one of ``CustomClaims/reservedNames``.
        case reservedName(String)

        package var description: String {
            switch self {
            case .notJSON: "custom claims must be a JSON object; this is not JSON"
            case .notAnObject: "custom claims must be a JSON object"
            case .tooLarge(let bytes):
                "custom claims must be at most \(CustomClaims.maximumBytes) bytes of JSON; these are \(bytes)"
            case .reservedName(let name):
                "the custom claim \"\(name)\" is reserved: the daemon sets it, or JWT gives it a meaning"
            }
        }
    }

    /// Checks `json`: an object of at most 1,000 bytes without a reserved name.
    package init(json: JSONValue) throws(Refusal) {
        guard case .object(let members) = json else { throw .notAnObject }
        // Sorted, so that among several reserved names the one reported does not depend on hashing.
        if let reserved = members.keys.sorted().first(where: Self.reservedNames.contains) {
            throw .reservedName(reserved)
        }
        let size = json.serialized(sortingKeys: true).count
        guard size <= Self.maximumBytes else { throw .tooLarge(bytes: size) }
        self.members = members
    }

    /// Checks the JSON text `bytes`, as a request or the `accounts set-claims` command gives it.
    package init(parsing bytes: [UInt8]) throws(Refusal) {
        guard bytes.count <= Self.maximumInputBytes else { throw .tooLarge(bytes: bytes.count) }
        guard let json = JSONValue.parse(bytes) else { throw .notJSON }
        try self.init(json: json)
    }

    private init(checked members: [String: JSONValue]) {
        self.members = members
    }

    /// The claims object, as stored and as merged into a token.
    package var json: JSONValue { .object(members) }
}
