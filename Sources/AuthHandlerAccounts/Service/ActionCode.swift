import AuthHandlerCrypto
import AuthHandlerSystem
import Foundation

/// An e-mail action code (HTTP-API.md §3.10, docs/ACCOUNTS.md "E-mail actions"): 32 random bytes as base64url, 43
/// characters, the `oobCode` of an action link. The store keeps only its ``digest()``; the text shows only as
/// `<redacted>`, so that no log line can carry it.
package struct ActionCode: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Random bytes behind a code: 256 bits from the CSPRNG, far beyond any online or offline guess, as for a refresh
    /// token (OWASP Forgot Password Cheat Sheet: a reset token random, long enough, single use and expiring).
    package static let byteCount = 32
    /// Characters of a code.
    package static let length = 43

    /// The code text, for the link.
    package let value: Secret

    /// A new random code.
    package static func generate() throws(CryptoError) -> ActionCode {
        ActionCode(checked: Secret(try SecureRandom.base64URLString(byteCount: byteCount)))
    }

    /// A code as a request presents it: nil unless it has a code's shape, so anything else is refused before a lookup.
    package init?(presented text: String) {
        guard text.utf8.count == Self.length, Base64.urlDecode(text)?.count == Self.byteCount else { return nil }
        value = Secret(text)
    }

    private init(checked value: Secret) {
        self.value = value
    }

    /// SHA-256 of the code text: the key the store keeps it under.
    package func digest() throws(CryptoError) -> [UInt8] {
        try SHA256.hash(Array(value.reveal().utf8))
    }

    package var description: String { Redaction.marker }

    package var debugDescription: String { "ActionCode(\(Redaction.marker))" }
}

extension OneTimeCodeKind {
    /// How long a code of this kind can be used: a reset an hour (OWASP Forgot Password Cheat Sheet: short-lived), a
    /// verification three days, a recovery of a changed address seven days (the owner may be away when it comes).
    package var lifetime: TimeInterval {
        switch self {
        case .resetPassword: 3600
        case .verifyEmail, .verifyAndChangeEmail: 3 * 86400
        case .recoverEmail: 7 * 86400
        }
    }

    /// The link's `mode`, Firebase's action-link modes: the kind's raw value.
    package var mode: String { rawValue }
}
