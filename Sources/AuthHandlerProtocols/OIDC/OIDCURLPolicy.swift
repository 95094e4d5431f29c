import AuthHandlerHTTP
import AuthHandlerSystem
import Foundation

/// The transport rule for every URL the OIDC layer fetches or hands on: `https`, or `http` on loopback.
///
/// HTTP-API.md §2.6 (the https rule): plain http is accepted only on `127.0.0.1`, `[::1]` and `localhost`, so that
/// tests and local IdPs work while no code, token or key set ever crosses a network unencrypted.
enum OIDCURLPolicy {
    /// Throws `insecureURL` unless `url` is an absolute https URL, or http on a loopback host, without
    /// user info or fragment.
    static func check(_ url: String, field: String) throws(OIDCError) {
        guard isAcceptable(url) else {
            throw .insecureURL(field: field, url: Redaction.target(url))
        }
    }

    /// Whether `url` satisfies the rule.
    static func isAcceptable(_ url: String) -> Bool {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(),
            let host = parts.host?.lowercased(), !host.isEmpty,
            parts.user == nil, parts.password == nil, parts.fragment == nil
        else { return false }
        switch scheme {
        case "https": return true
        case "http": return ListenAddress.isLoopback(host: host)
        default: return false
        }
    }
}
