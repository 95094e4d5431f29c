import AuthHandlerCrypto
import AuthHandlerSystem

/// What a ``RandomToken`` is for: its name in a debug description. A phantom type, so that a refresh token and an
/// e-mail action code are different types with one implementation.
package protocol RandomTokenPurpose {
    static var name: String { get }
}

/// A bearer secret the accounts hand out (a refresh token, an e-mail action code): 32 random bytes from the CSPRNG
/// as base64url, 43 characters, beyond any online or offline guess (RFC 9700 §4.14; OWASP Forgot Password Cheat
/// Sheet). The store keeps only its ``digest()``; the text itself shows only as `<redacted>`, so that no log line can
/// carry it.
package struct RandomToken<Purpose: RandomTokenPurpose>: Sendable, Equatable, CustomStringConvertible,
    CustomDebugStringConvertible
{
    /// Random bytes behind a token: 256 bits.
    package static var byteCount: Int { 32 }
    /// Characters of a token.
    package static var length: Int { 43 }

    /// The token text, for an answer, a cookie or a link.
    package let value: Secret

    /// A new random token.
    package static func generate() throws(CryptoError) -> Self {
        Self(checked: Secret(try SecureRandom.base64URLString(byteCount: byteCount)))
    }

    /// A token as a request presents it: nil unless it has a token's shape (43 base64url characters of 32 bytes), so
    /// that anything else is refused before a lookup.
    package init?(presented text: String) {
        guard text.utf8.count == Self.length, Base64.urlDecode(text)?.count == Self.byteCount else { return nil }
        value = Secret(text)
    }

    private init(checked value: Secret) {
        self.value = value
    }

    /// SHA-256 of the token text (its ASCII bytes): the key the store keeps it under.
    package func digest() throws(CryptoError) -> [UInt8] {
        try SHA256.hash(Array(value.reveal().utf8))
    }

    package var description: String { Redaction.marker }

    package var debugDescription: String { "\(Purpose.name)(\(Redaction.marker))" }
}
