import AuthHandlerCrypto

/// The `oauth_signature_method` values this project signs and verifies (RFC 5849 §3.4).
///
/// HMAC-SHA256 is not in RFC 5849 but is the common extension (same key and base string, SHA-256).
/// RSA-SHA1 is not supported: no provider we talk to needs it.
package enum OAuth1SignatureMethod: String, Sendable, Hashable, CaseIterable {
    /// HMAC-SHA1 (§3.4.2), the default.
    case hmacSHA1 = "HMAC-SHA1"
    /// HMAC-SHA256, the SHA-256 variant of §3.4.2.
    case hmacSHA256 = "HMAC-SHA256"
    /// PLAINTEXT (§3.4.4): the signing key itself, for TLS-only use.
    case plaintext = "PLAINTEXT"

    /// The method used when a configuration names none.
    package static let `default`: OAuth1SignatureMethod = .hmacSHA1

    /// The method named exactly (names are case-sensitive, §3.1), or nil.
    package init?(name: String) {
        self.init(rawValue: name)
    }

    /// The name sent as `oauth_signature_method`.
    package var name: String { rawValue }

    /// Whether the method signs the base string and so needs `oauth_timestamp` and `oauth_nonce` (§3.1).
    package var usesBaseString: Bool { self != .plaintext }
}
