import AuthHandlerCrypto
import AuthHandlerSystem

/// A refresh token (issue 25 §4 "Refresh"): 32 random bytes as base64url, 43 characters. The store keeps only its
/// ``digest()``, SHA-256 of the token text, and its successor sealed under a key only the token opens
/// (`RefreshTokenSuccessorSeal`); the text itself shows only as `<redacted>`.
package struct RefreshToken: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Random bytes behind a token: 256 bits, beyond guessing (RFC 9700 §4.14 asks refresh tokens be unguessable).
    package static let byteCount = 32
    /// Characters of a token.
    package static let length = 43

    /// The token text, for the answer's `refresh_token` or the session cookie.
    package let value: Secret

    /// A new random token.
    package static func generate() throws(CryptoError) -> RefreshToken {
        RefreshToken(checked: Secret(try SecureRandom.base64URLString(byteCount: byteCount)))
    }

    /// A token as a request presents it: nil unless it has a token's shape (43 base64url characters), so that
    /// anything else is refused as `invalid_grant` before a lookup.
    package init?(presented text: String) {
        guard text.utf8.count == Self.length, Base64.urlDecode(text)?.count == Self.byteCount else { return nil }
        value = Secret(text)
    }

    private init(checked value: Secret) {
        self.value = value
    }

    /// SHA-256 of the token text (its ASCII bytes): the key the store finds the token's session by.
    package func digest() throws(CryptoError) -> [UInt8] {
        try SHA256.hash(Array(value.reveal().utf8))
    }

    package var description: String { Redaction.marker }

    package var debugDescription: String { "RefreshToken(\(Redaction.marker))" }
}
