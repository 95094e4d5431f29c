import Foundation

/// Where the Redis store connects: `redis://[USER@]HOST[:PORT][/DB]` or `unix:/PATH[?db=N]` (docs/CONFIG.md).
///
/// A password never appears here: it is a secret reference of its own (`store.password`), so the URL can be logged.
package struct RedisAddress: Sendable, Hashable, CustomStringConvertible {
    /// The transport.
    package enum Endpoint: Sendable, Hashable {
        /// A TCP host (a name, an IPv4 address or an IPv6 address without brackets) and port.
        case tcp(host: String, port: Int)
        /// A Unix domain socket path.
        case unix(path: String)
    }

    /// Redis's default TCP port (https://redis.io/docs/latest/operate/oss_and_stack/management/config/).
    package static let defaultPort = 6379

    package let endpoint: Endpoint
    /// The ACL user for `AUTH USER PASSWORD`; nil means `AUTH PASSWORD` (the `default` user).
    package let user: String?
    /// The logical database chosen with `SELECT` (0 by default).
    package let database: Int

    package init(endpoint: Endpoint, user: String? = nil, database: Int = 0) {
        self.endpoint = endpoint
        self.user = user
        self.database = database
    }

    /// Parses a `url` from the config; the error says what is wrong and what is expected.
    package static func parse(_ text: String) -> Result<RedisAddress, RedisAddressError> {
        let expected = "expected redis://[USER@]HOST[:PORT][/DB] or unix:/PATH[?db=N]"
        if text.lowercased().hasPrefix("rediss:") {
            return .failure(
                RedisAddressError(
                    "TLS is not supported by this build's hiredis (0.14); connect to a local TLS proxy such as "
                        + "stunnel over redis:// or a unix: socket instead"))
        }
        if text.hasPrefix("unix:") {
            return parseUnix(text, expected: expected)
        }
        // A URL with user info may hold a password: it is never quoted back in an error (errors reach the log).
        let shown = text.contains("@") ? "the URL (not shown: it has user info)" : Self.quote(text)
        guard let parts = URLComponents(string: text), parts.scheme?.lowercased() == "redis" else {
            return .failure(RedisAddressError("\(shown) is not a Redis URL; \(expected)"))
        }
        if parts.password != nil {
            return .failure(
                RedisAddressError(
                    "must not contain a password; set store.password to a secret reference such as "
                        + "{\"credential\": \"redis-password\"}"))
        }
        guard let host = parts.host, !host.isEmpty else {
            return .failure(RedisAddressError("\(shown) has no host; \(expected)"))
        }
        if parts.query != nil || parts.fragment != nil {
            return .failure(RedisAddressError("must not have a query or fragment; \(expected)"))
        }
        let port = parts.port ?? defaultPort
        guard (1...65535).contains(port) else {
            return .failure(RedisAddressError("port \(port) is out of range; \(expected)"))
        }
        var database = 0
        let path = parts.path.hasPrefix("/") ? String(parts.path.dropFirst()) : parts.path
        if !path.isEmpty {
            guard let number = databaseNumber(path) else {
                return .failure(
                    RedisAddressError("\(Self.quote(path)) is not a database number; \(expected)"))
            }
            database = number
        }
        // URLComponents keeps an IPv6 literal's brackets; hiredis resolves the bare address with getaddrinfo(3).
        let bareHost = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let user = parts.user.flatMap { $0.isEmpty ? nil : ($0.removingPercentEncoding ?? $0) }
        return .success(RedisAddress(endpoint: .tcp(host: bareHost, port: port), user: user, database: database))
    }

    private static func parseUnix(_ text: String, expected: String) -> Result<RedisAddress, RedisAddressError> {
        let rest = text.dropFirst("unix:".count)
        let pieces = rest.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(pieces[0])
        guard path.hasPrefix("/") else {
            return .failure(RedisAddressError("\(Self.quote(text)) needs an absolute socket path; \(expected)"))
        }
        var database = 0
        if pieces.count == 2 {
            let query = pieces[1]
            guard query.hasPrefix("db="), let number = databaseNumber(String(query.dropFirst(3))) else {
                return .failure(RedisAddressError("\(Self.quote(String(query))) is not \"db=N\"; \(expected)"))
            }
            database = number
        }
        return .success(RedisAddress(endpoint: .unix(path: path), database: database))
    }

    /// A database index: decimal digits, 0…(a sane bound; Redis's `databases` setting decides the real one).
    private static func databaseNumber(_ text: String) -> Int? {
        guard !text.isEmpty, text.count <= 5, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }

    private static func quote(_ text: String) -> String { "\"\(text)\"" }

    /// The address without secrets, for logs and errors.
    package var description: String {
        let userPart = user.map { "\($0)@" } ?? ""
        switch endpoint {
        case .tcp(let host, let port):
            let shownHost = host.contains(":") ? "[\(host)]" : host
            return "redis://\(userPart)\(shownHost):\(port)/\(database)"
        case .unix(let path):
            return "unix:\(path)" + (database == 0 ? "" : "?db=\(database)")
        }
    }
}

/// Why a Redis URL was refused.
package struct RedisAddressError: Error, Sendable, Equatable, CustomStringConvertible {
    package let description: String

    init(_ description: String) { self.description = description }
}
