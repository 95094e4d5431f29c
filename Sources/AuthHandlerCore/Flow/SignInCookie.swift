import AuthHandlerCrypto
import AuthHandlerHTTP
import Foundation

/// The cookie a pending sign-in travels in between the start and the IdP's callback (HTTP-API.md §3.1, §3.2).
///
/// Its name carries a tag of the sign-in's `state` (OAuth 1.0a: its request token), so several sign-ins can run in
/// one browser at once and the callback finds its own cookie by the `state` the IdP echoes. Its value is the pending
/// sign-in sealed under the state key, bound to that name, so a value moved under another name does not open.
package struct SignInCookie: Sendable, Equatable {
    /// The cookie's name: `auth-handler-<tag>`, `__Host-auth-handler-<tag>` with an https `publicURL`.
    let name: String
    /// The sealed pending sign-in.
    let value: String

    /// The largest `name=value` set (HTTP-API.md §3.1): well within the 4096 bytes per cookie RFC 6265 §6.1 asks
    /// browsers to keep, and small enough that ``SignInFlow/maximumPendingPerBrowser`` of them, even twice over
    /// (starts in flight in several tabs at once, before eviction sees them), leave room in the listener's header
    /// limit. A typical sign-in's cookie takes about 500 bytes.
    static let maximumLength = 1536
    static let namePrefix = "auth-handler-"

    /// How the cookie is set: `Secure` (and the `__Host-` name) with an https `publicURL`; `SameSite=None; Secure`
    /// for a `form_post` provider, whose callback is the IdP's cross-site POST (RFC 6265bis §5.4.7: a Lax cookie is
    /// sent on cross-site top-level GETs only).
    struct Attributes: Sendable, Equatable {
        var httpsOrigin: Bool
        var crossSitePost: Bool

        var secure: Bool { httpsOrigin || crossSitePost }
    }

    /// The name of the cookie for a sign-in whose state (or request token) is `key`.
    static func name(forState key: String, httpsOrigin: Bool) -> String? {
        guard let digest = try? SHA256.hash(Array(key.utf8)) else { return nil }
        let tag = String(Base64.urlEncode(digest).prefix(16))
        return (httpsOrigin ? "__Host-" : "") + namePrefix + tag
    }

    /// The `Set-Cookie` value that stores this cookie for `maxAge` seconds.
    func setCookie(maxAge: Int, attributes: Attributes) -> String {
        "\(name)=\(value)" + Self.attributeText(maxAge: maxAge, attributes: attributes)
    }

    /// The `Set-Cookie` value that removes the cookie `name` (RFC 6265 §3.1: an expired cookie is deleted).
    static func clearing(name: String, attributes: Attributes) -> String {
        "\(name)=" + attributeText(maxAge: 0, attributes: attributes)
    }

    private static func attributeText(maxAge: Int, attributes: Attributes) -> String {
        var text = "; Path=/; Max-Age=\(maxAge); HttpOnly"
        if attributes.secure { text += "; Secure" }
        text += attributes.crossSitePost ? "; SameSite=None" : "; SameSite=Lax"
        return text
    }

    /// Every pending sign-in cookie (`auth-handler-*`, `__Host-auth-handler-*`) in the request's `Cookie` header
    /// fields, by name (the first value of each name).
    package static func all(in cookieHeaders: [String]) -> [(name: String, value: String)] {
        var seen: Set<String> = []
        var cookies: [(name: String, value: String)] = []
        for header in cookieHeaders {
            forEachPair(in: header) { nameBytes, value in
                let name = String(decoding: nameBytes, as: UTF8.self)
                guard name.hasPrefix(namePrefix) || name.hasPrefix("__Host-" + namePrefix), seen.insert(name).inserted
                else { return }
                cookies.append((name, String(decoding: value, as: UTF8.self)))
            }
        }
        return cookies
    }

    /// Every value of the cookie `name` in the request's `Cookie` header fields (RFC 6265 §5.4: `a=b; c=d`).
    package static func values(named name: String, in cookieHeaders: [String]) -> [String] {
        let wanted = Array(name.utf8)
        var values: [String] = []
        for header in cookieHeaders {
            forEachPair(in: header) { name, value in
                if name.elementsEqual(wanted) { values.append(String(decoding: value, as: UTF8.self)) }
            }
        }
        return values
    }

    /// Calls `body` with the name and value bytes of each `name=value` pair of a `Cookie` header (RFC 6265 §5.4),
    /// blanks (space, tab) trimmed around the name's start and the value. On the header's UTF-8 bytes: `;`, `=`,
    /// space and tab are single bytes that never occur inside a multi-byte sequence, so this is right for any
    /// header, without the grapheme breaking and `CharacterSet` trims that made reading the cookie a measurable part
    /// of a callback (BENCHMARKS.md).
    private static func forEachPair(
        in header: String, _ body: (_ name: ArraySlice<UInt8>, _ value: ArraySlice<UInt8>) -> Void
    ) {
        let bytes = Array(header.utf8)
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var start = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: ";")) ?? bytes.count
            var first = start
            while first < end, isBlank(bytes[first]) { first += 1 }
            if let equals = bytes[first..<end].firstIndex(of: UInt8(ascii: "=")) {
                var valueStart = equals + 1
                var valueEnd = end
                while valueStart < valueEnd, isBlank(bytes[valueStart]) { valueStart += 1 }
                while valueEnd > valueStart, isBlank(bytes[valueEnd - 1]) { valueEnd -= 1 }
                body(bytes[first..<equals], bytes[valueStart..<valueEnd])
            }
            start = end + 1
        }
    }
}
