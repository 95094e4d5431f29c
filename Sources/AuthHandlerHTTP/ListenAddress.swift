#if canImport(Glibc)
    import Glibc
#endif

/// An address to bind: `IPv4:PORT`, `[IPv6]:PORT` or `localhost:PORT`; port 0 asks the kernel for an ephemeral port.
///
/// The one listen address of `listen`, `opsListen`, `fake-idp --listen` and the HTTP server, so that what
/// `check-config` accepts is what `serve` binds (docs/CONFIG.md, `listen`). Host names other than `localhost`
/// are refused rather than resolved: a daemon binds the addresses its config names, not whatever DNS says today.
package struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    /// The host as written: an IPv4 address, an IPv6 address (without brackets) or `localhost`.
    package var host: String
    /// The TCP port; 0 means ephemeral.
    package var port: UInt16

    /// Creates an address; a host that is neither an IP address nor `localhost` fails when it is bound.
    package init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Parses `IPv4:PORT`, `[IPv6]:PORT` or `localhost:PORT`; nil when the text is not of that form.
    package init?(parsing text: String) {
        let hostPart: Substring
        let portPart: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            hostPart = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":"), Self.isIPv6(hostPart) else { return nil }
            portPart = rest.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
            guard Self.isIPv4(hostPart) || hostPart.lowercased() == "localhost" else { return nil }
        }
        guard !portPart.isEmpty, portPart.count <= 5, portPart.allSatisfy({ $0.isASCII && $0.isNumber }),
            let port = UInt16(portPart)
        else { return nil }
        self.init(host: String(hostPart), port: port)
    }

    /// Parses like `init?(parsing:)`, throwing an error that says which forms are accepted.
    package init(_ text: String) throws(HTTPServerError) {
        guard let address = ListenAddress(parsing: text) else {
            throw HTTPServerError(operation: "parse", subject: text, detail: Self.expectedForm)
        }
        self = address
    }

    /// The accepted forms, for error messages.
    package static let expectedForm =
        "expected HOST:PORT with an IP address or localhost as HOST (127.0.0.1:8080, [V6]:PORT as [::1]:8080, "
        + "localhost:8080); host names are not resolved, use an IP address"

    /// The address as written in the config: IPv6 hosts in brackets.
    package var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// The numeric host a socket binds: `localhost` as `127.0.0.1`, anything else as written.
    package var numericHost: String { host.lowercased() == "localhost" ? "127.0.0.1" : host }

    /// Whether the bound socket is IPv6.
    package var isIPv6: Bool { numericHost.contains(":") }

    /// Whether the host is a loopback address or `localhost`.
    package var isLoopback: Bool { Self.isLoopback(host: host) }

    /// The hosts on which plain `http` is accepted for provider, backend and IdP URLs (HTTP-API.md §2.6);
    /// URLComponents reports `[::1]` without brackets, URL text has them.
    package static let loopbackHosts: Set<String> = ["127.0.0.1", "::1", "[::1]", "localhost"]

    /// Whether `host` (with or without IPv6 brackets) is `127.0.0.1`, `::1` or `localhost`.
    package static func isLoopback(host: String) -> Bool {
        loopbackHosts.contains(host.lowercased())
    }

    static func isIPv4(_ text: Substring) -> Bool {
        var address = in_addr()
        return inet_pton(AF_INET, String(text), &address) == 1
    }

    static func isIPv6(_ text: Substring) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET6, String(text), &address) == 1
    }
}
