/// An address to bind: `HOST:PORT`, or `[V6]:PORT` for IPv6. Port 0 asks the kernel for an ephemeral port.
public struct ListenAddress: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The host: an IPv4 address, an IPv6 address (without brackets) or a host name.
    public var host: String
    /// The TCP port; 0 means ephemeral.
    public var port: UInt16

    /// Creates an address.
    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT` or `[V6]:PORT`; nil when the text is not of that form.
    public init?(parsing text: String) {
        let hostPart: Substring
        let portPart: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            hostPart = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { return nil }
            portPart = rest.dropFirst()
            guard Self.isIPv6(hostPart) else { return nil }
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
            guard Self.isIPv4(hostPart) || Self.isHostName(hostPart) else { return nil }
        }
        guard !portPart.isEmpty, portPart.allSatisfy({ $0.isASCII && $0.isNumber }), portPart.count <= 5,
            let port = UInt16(portPart)
        else { return nil }
        self.init(host: String(hostPart), port: port)
    }

    /// The address as written in the config: IPv6 hosts in brackets.
    public var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Whether the host is a loopback address or `localhost`.
    public var isLoopback: Bool { Self.isLoopback(host: host) }

    /// The hosts on which plain `http` is accepted for provider and backend URLs.
    public static let loopbackHosts: Set<String> = ["127.0.0.1", "::1", "[::1]", "localhost"]

    /// Whether `host` (with or without IPv6 brackets) is `127.0.0.1`, `::1` or `localhost`.
    public static func isLoopback(host: String) -> Bool {
        loopbackHosts.contains(host.lowercased())
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let address = ListenAddress(parsing: text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "expected HOST:PORT or [V6]:PORT"))
        }
        self = address
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    static func isIPv4(_ text: Substring) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy { part in
                !part.isEmpty && part.count <= 3 && part.allSatisfy { $0.isASCII && $0.isNumber }
                    && (Int(part) ?? 256) <= 255
            }
    }

    static func isIPv6(_ text: Substring) -> Bool {
        guard text.count >= 2, text.contains(":") else { return false }
        guard text.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return false }
        let doubleColons = text.ranges(of: "::").count
        guard doubleColons <= 1 else { return false }
        let groups = text.split(separator: ":", omittingEmptySubsequences: true)
        return groups.count <= 8 && groups.allSatisfy { $0.count <= 4 || isIPv4($0) }
    }

    static func isHostName(_ text: Substring) -> Bool {
        guard !text.isEmpty, text.count <= 253 else { return false }
        return text.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            !label.isEmpty && label.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        }
    }
}
