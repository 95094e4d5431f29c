import AuthHandlerCrypto
import AuthHandlerHTTP

/// The picker's defence against login CSRF (docs/ACCOUNTS.md "Login CSRF"): no other site can make a browser post the
/// picker's e-mail forms and so sign it in to an account of that site's choosing.
///
/// The OWASP CSRF Prevention Cheat Sheet's "Signed Double-Submit Cookie": a random value in an `HttpOnly` cookie, and
/// in each form a token only this server can make from that value (the value sealed with AES-256-GCM under the state
/// keys, ``StateKeyRing``, so the keys rotate with them). A POST passes only when its token opens to the value of a
/// cookie it carries. Over https the cookie is `__Host-` prefixed (RFC 6265bis §4.1.3.2: `Secure`, `Path=/`, no
/// `Domain`), so a sibling subdomain cannot toss in a cookie of its own whose token it holds (the cheat sheet's
/// caveat on cookie tossing). The forms' requests are also checked for `Sec-Fetch-Site`/`Origin`
/// (``PickerRoutes``), as the action pages' are.
struct PickerCSRF {
    /// The sealed token's context: a token made for anything else does not open as one.
    static let context = "picker-csrf"
    let keys: StateKeyRing
    let https: Bool

    /// The cookie's name: `__Host-auth_handler_csrf` over https, `auth_handler_csrf` over http (where a browser refuses
    /// the prefix).
    var cookieName: String { https ? "__Host-auth_handler_csrf" : "auth_handler_csrf" }

    /// The cookie value this browser already holds (the first well-formed one), if any.
    func presentedValue(_ cookieHeaders: [String]) -> String? {
        SignInCookie.values(named: cookieName, in: cookieHeaders).first { Self.isWellFormed($0) }
    }

    /// A fresh value: base64url of 32 random bytes.
    static func newValue() throws(CryptoError) -> String { try SecureRandom.base64URLString(byteCount: 32) }

    /// The form token for the cookie `value`.
    func token(for value: String) throws(CryptoError) -> String {
        try keys.seal(Array(value.utf8), context: Self.context)
    }

    /// The `Set-Cookie` that keeps `value`: a browser-session cookie, `HttpOnly`, `SameSite=Lax`. The forms post to
    /// their own origin, so `Lax` refuses a cross-site post as `Strict` would; `Lax` is needed because the value also
    /// binds ``PickerState`` to this browser, and the provider's redirect back to the picker (a cross-site top-level
    /// navigation by GET, which RFC 6265bis lets `Lax` cookies go with) must carry it. The double-submit token, not
    /// `SameSite`, is the defence: the OWASP CSRF Prevention Cheat Sheet calls `SameSite` defence in depth.
    func setCookie(_ value: String) -> String {
        let path = https ? "/" : AccountsRequest.cookiePath
        return "\(cookieName)=\(value); Path=\(path); HttpOnly" + (https ? "; Secure" : "") + "; SameSite=Lax"
    }

    /// The value this browser holds, or a new one with the `Set-Cookie` that keeps it.
    func held(_ cookieHeaders: [String]) throws(CryptoError) -> (value: String, setCookie: String?) {
        if let held = presentedValue(cookieHeaders) { return (held, nil) }
        let value = try Self.newValue()
        return (value, setCookie(value))
    }

    /// Whether `token` was made by this server for one of the values of the cookie in `cookieHeaders`.
    func accepts(_ token: String?, cookieHeaders: [String]) -> Bool {
        guard let token, token.utf8.count <= 256, let opened = keys.open(token, context: Self.context) else {
            return false
        }
        return SignInCookie.values(named: cookieName, in: cookieHeaders).contains { value in
            ConstantTime.equals(Array(value.utf8), opened)
        }
    }

    private static func isWellFormed(_ value: String) -> Bool {
        value.utf8.count == 43 && Base64.urlDecode(value)?.count == 32
    }
}
