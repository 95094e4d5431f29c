import Foundation

/// The parts of a URL that say where it leads, compared as RFC 3986 §6.2.2 and §6.2.3 normalise them: scheme and host
/// ASCII-lowercased, a scheme's default port as no port, and an empty `http`/`https` path as `/`.
struct URLOrigin: Sendable, Equatable {
    var scheme: String?
    var host: String?
    var port: Int?
    var path: String

    init?(_ url: URL) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return nil }
        let scheme = components.scheme?.lowercased()
        let isWeb = scheme == "http" || scheme == "https"
        self.scheme = scheme
        host = components.percentEncodedHost?.lowercased()
        let defaultPort = scheme == "https" ? 443 : scheme == "http" ? 80 : nil
        port = components.port == defaultPort ? nil : components.port
        path = isWeb && components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
    }

    /// The first part in which `self` differs from `other`, as its name; nil when they lead to the same place.
    func differingPart(from other: URLOrigin) -> String? {
        if scheme != other.scheme { return "scheme" }
        if host != other.host { return "host" }
        if port != other.port { return "port" }
        if path != other.path { return "path" }
        return nil
    }

    /// Whether the host is this machine's: `localhost`, 127.0.0.0/8 or `::1` (RFC 6761 §6.3, RFC 1122 §3.2.1.3,
    /// RFC 4291 §2.5.3), where a plain `http` connection never leaves the machine.
    var isLoopback: Bool {
        guard var host else { return false }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host == "localhost" || host == "::1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4,
            octets.allSatisfy({
                !$0.isEmpty && $0.count <= 3 && $0.allSatisfy { $0.isASCII && $0.isNumber } && UInt8($0) != nil
            })
        else { return false }
        return octets[0] == "127"
    }
}
