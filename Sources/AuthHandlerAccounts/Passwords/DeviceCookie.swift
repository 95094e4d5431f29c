import AuthHandlerCrypto
import AuthHandlerSystem
import Foundation

/// The device cookie (OWASP, "Slow Down Online Guessing Attacks with Device Cookies"; docs/ACCOUNTS.md
/// "Passwords"): set by a successful password sign-in, it tells ``SignInThrottle`` that this browser has signed in to
/// that e-mail before, so that it is not refused when a botnet's guessing has locked the e-mail for everyone else.
///
/// The value is base64url (RFC 4648 §5, no padding) of 89 bytes:
/// `version (1) ‖ nonce (16) ‖ issued-at (8, seconds since 1970, big-endian) ‖ e-mail digest (32) ‖ MAC (32)`.
/// The MAC is HMAC-SHA256 (RFC 2104) under the caller's key over everything before it; the e-mail digest is an
/// HMAC-SHA256 of the normalised e-mail under the same key (a separate label), so that the cookie names no e-mail to
/// someone who reads it and cannot be moved to another one. It lives ``lifetime`` (90 days, the refresh token's
/// `absoluteDays` default: a device that has not signed in for that long is a new device again).
package struct DeviceCookie: Sendable, CustomStringConvertible, CustomReflectable {
    /// The cookie's name.
    package static let name = "auth_handler_device"
    /// The default lifetime, 90 days.
    package static let defaultLifetime: TimeInterval = 90 * 24 * 60 * 60
    /// How far in the future an issue time may lie (clock steps between instances), 5 minutes.
    private static let allowedSkew: TimeInterval = 300
    private static let version: UInt8 = 1
    private static let nonceBytes = 16
    private static let signedBytes = 1 + nonceBytes + 8 + 32
    private static let totalBytes = signedBytes + 32
    private static let macLabel = Array("auth-handler device-cookie v1\0".utf8)
    private static let emailLabel = Array("auth-handler device-cookie e-mail\0".utf8)

    /// What ``verify(_:email:)`` found.
    package enum Verification: Sendable, Hashable {
        /// Issued by us for this e-mail and not expired.
        case valid
        /// Ours, but for another e-mail.
        case otherEmail
        /// Ours and for this e-mail, but older than the lifetime.
        case expired
        /// Not a device cookie of ours: malformed, altered, or made under another key.
        case invalid
    }

    private let key: [UInt8]
    /// How long an issued cookie is accepted.
    package let lifetime: TimeInterval
    private let now: WallClock

    /// - Parameters:
    ///   - key: the HMAC key, at least 32 random bytes (the caller derives it from the state key with HKDF).
    ///   - lifetime: how long a cookie is accepted (default 90 days).
    ///   - now: the clock, injected so that tests move time.
    package init(key: [UInt8], lifetime: TimeInterval = defaultLifetime, now: @escaping WallClock = systemWallClock) {
        self.key = key
        self.lifetime = lifetime
        self.now = now
    }

    /// A new cookie value for a successful sign-in to `email` (the normalised form).
    package func issue(email: String) throws(CryptoError) -> String {
        var bytes = [Self.version] + (try SecureRandom.bytes(Self.nonceBytes))
        let issued = UInt64(max(0, now().timeIntervalSince1970.rounded(.down)))
        bytes += withUnsafeBytes(of: issued.bigEndian) { Array($0) }
        bytes += try digest(of: email)
        bytes += try HMAC.sha256(key: key, message: Self.macLabel + bytes)
        return Base64.urlEncode(bytes)
    }

    /// Whether `value` is a device cookie of ours for `email`, still within its lifetime.
    package func verify(_ value: String, email: String) -> Verification {
        guard value.utf8.count <= 200, let bytes = Base64.urlDecode(value), bytes.count == Self.totalBytes,
            bytes[0] == Self.version
        else { return .invalid }
        let signed = Array(bytes[..<Self.signedBytes])
        guard let mac = try? HMAC.sha256(key: key, message: Self.macLabel + signed),
            ConstantTime.equals(mac, Array(bytes[Self.signedBytes...]))
        else { return .invalid }
        let issued = bytes[(1 + Self.nonceBytes)..<(1 + Self.nonceBytes + 8)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let age = now().timeIntervalSince1970 - Double(issued)
        guard age >= -Self.allowedSkew else { return .invalid }
        let digestStart = 1 + Self.nonceBytes + 8
        guard let expected = try? digest(of: email),
            ConstantTime.equals(expected, Array(bytes[digestStart..<Self.signedBytes]))
        else { return .otherEmail }
        return age < lifetime ? .valid : .expired
    }

    /// The `Set-Cookie` for `value`: `Secure` when `publicURL` is https.
    package func setCookie(_ value: String, secure: Bool) -> DeviceCookieHeader {
        DeviceCookieHeader(value: value, maxAge: Int(lifetime), secure: secure)
    }

    private func digest(of email: String) throws(CryptoError) -> [UInt8] {
        try HMAC.sha256(key: key, message: Self.emailLabel + Array(email.utf8))
    }

    package var description: String { "DeviceCookie(key: \(Redaction.marker), lifetime: \(Int(lifetime)) s)" }
    package var customMirror: Mirror { Mirror(self, children: [:]) }
}

/// The device cookie as the response sets it (RFC 6265 §4.1): `HttpOnly` (no script reads it), `SameSite=Strict`,
/// `Path=/__/auth/` (only the daemon's endpoints receive it), `Secure` when `publicURL` is https, and `Max-Age` the
/// cookie's lifetime. Its textual forms never show the value.
package struct DeviceCookieHeader: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    package let name = DeviceCookie.name
    package let value: String
    package let maxAge: Int
    package let path = "/__/auth/"
    package let secure: Bool

    /// The `Set-Cookie` field value.
    package var fieldValue: String {
        "\(name)=\(value); Max-Age=\(maxAge); Path=\(path); HttpOnly" + (secure ? "; Secure" : "") + "; SameSite=Strict"
    }

    package var description: String {
        "\(name)=\(Redaction.marker); Max-Age=\(maxAge); Path=\(path); HttpOnly" + (secure ? "; Secure" : "")
            + "; SameSite=Strict"
    }

    package var debugDescription: String { description }
    package var customMirror: Mirror { Mirror(self, children: [:]) }
}
