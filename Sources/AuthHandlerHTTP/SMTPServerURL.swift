import AuthHandlerSystem
import CCurl

/// How the SMTP client protects a connection; decided from the URL alone, and there is no setting that turns it off.
package enum SMTPTransportSecurity: Sendable, Equatable, CustomStringConvertible {
    /// `smtps://`: TLS from the first byte (RFC 8314 §3.3).
    case implicitTLS
    /// `smtp://` to any host but this machine: STARTTLS (RFC 3207) is required, and a server that does not offer it
    /// fails the transfer (`CURLUSESSL_ALL`, CURLOPT_USE_SSL(3)), so no network can downgrade the connection.
    case startTLSRequired
    /// `smtp://` to a loopback host (127.0.0.0/8, ::1, `localhost`): plain text, which never leaves the machine.
    case plainOnLoopback

    /// The rule of docs/ACCOUNTS.md "E-mail addresses and mail": `smtps` is TLS, `smtp` is STARTTLS unless `host`
    /// is loopback. nil for any other scheme.
    package static func decide(scheme: String, host: String) -> SMTPTransportSecurity? {
        switch scheme.lowercased() {
        case "smtps": .implicitTLS
        case "smtp": isLoopback(host) ? .plainOnLoopback : .startTLSRequired
        default: nil
        }
    }

    /// Whether `host` (as a URL writes it, an IPv6 address in brackets) is this machine: an IPv4 address in
    /// 127.0.0.0/8 (RFC 1122 §3.2.1.3), `::1` (RFC 4291 §2.5.3), or the name `localhost`, which libcurl resolves to
    /// loopback itself, without asking DNS. Any other name counts as remote, even one that resolves to loopback.
    package static func isLoopback(_ host: String) -> Bool {
        if host.lowercased() == "localhost" { return true }
        var literal = Substring(host)
        if literal.hasPrefix("["), literal.hasSuffix("]") { literal = literal.dropFirst().dropLast() }
        guard let address = IPAddress(parsing: String(literal)) else { return false }
        if address.isIPv6 { return address.bytes == Array(repeating: 0, count: 15) + [1] }
        return address.bytes.first == 127
    }

    package var description: String {
        switch self {
        case .implicitTLS: "implicit TLS"
        case .startTLSRequired: "STARTTLS required"
        case .plainOnLoopback: "plain text on loopback"
        }
    }
}

/// The SMTP server's URL, read by libcurl's own URL parser (curl_url(3)), so that the host the TLS rule was decided
/// for is the host libcurl connects to: the client hands libcurl the URL this parser wrote back, never the text it was
/// given.
package struct SMTPServerURL: Sendable, Equatable, CustomStringConvertible {
    /// libcurl's normalised URL, what the transfer uses.
    package let url: String
    /// The host, as the URL writes it.
    package let host: String
    /// How the connection is protected.
    package let security: SMTPTransportSecurity

    /// Reads `text`: `smtp://host[:port]` or `smtps://host[:port]`, without user info (the credentials are settings of
    /// their own), path, query or fragment.
    package init(_ text: String) throws(SMTPClientError) {
        let target = Redaction.target(text)
        let refuse = { (reason: String) in
            SMTPClientError(kind: .invalidConfiguration(reason), target: target)
        }
        guard let handle = curl_url() else { throw refuse("curl_url failed: out of memory") }
        defer { curl_url_cleanup(handle) }
        let code = curl_url_set(handle, CURLUPART_URL, text, 0)
        guard code == CURLUE_OK else {
            throw refuse("the SMTP URL is not valid: \(String(cString: curl_url_strerror(code)))")
        }
        let part = { (which: CURLUPart) -> String? in
            var value: UnsafeMutablePointer<CChar>?
            guard curl_url_get(handle, which, &value, 0) == CURLUE_OK, let value else { return nil }
            defer { curl_free(value) }
            return String(cString: value)
        }
        guard let scheme = part(CURLUPART_SCHEME), let host = part(CURLUPART_HOST),
            let security = SMTPTransportSecurity.decide(scheme: scheme, host: host)
        else { throw refuse("the SMTP URL must start with smtp:// or smtps:// and name a host") }
        guard part(CURLUPART_USER) == nil, part(CURLUPART_PASSWORD) == nil, part(CURLUPART_OPTIONS) == nil else {
            throw refuse("the SMTP URL must not carry a user name or password: give them as settings of their own")
        }
        guard (part(CURLUPART_PATH) ?? "/") == "/", part(CURLUPART_QUERY) == nil, part(CURLUPART_FRAGMENT) == nil
        else { throw refuse("the SMTP URL must have no path, query or fragment") }
        guard let url = part(CURLUPART_URL) else { throw refuse("curl_url_get failed") }
        self.url = url
        self.host = host
        self.security = security
    }

    package var description: String { url }
}
