import AuthHandlerHTTP

/// The base string URI of RFC 5849 §3.4.1.2: scheme, authority and path, without query or fragment.
///
/// Scheme and host are lower-cased, a default port (80 for http, 443 for https) is dropped and any
/// other port kept, user information is dropped, and the path is kept exactly as sent (an empty path
/// is `/`). `GET /r%20v/X?id=123` to `Host: EXAMPLE.COM:80` gives `http://example.com/r%20v/X`.
package struct BaseStringURI: Sendable, Equatable, CustomStringConvertible {
    /// The normalised URI that goes (encoded) into the signature base string.
    package let value: String
    /// The raw query of the URL (after `?`, before `#`), still percent-encoded; nil when there was none.
    /// Not part of `value`: its parameters are signed as request parameters (§3.4.1.3.1).
    package let query: String?

    /// Normalises an absolute `http` or `https` URL; throws `invalidURL` for anything else.
    package init(_ url: String) throws(OAuth1Error) {
        (value, query) = try Self.parse(Array(url.utf8))
    }

    package var description: String { value }

    private static func parse(_ url: [UInt8]) throws(OAuth1Error) -> (String, String?) {
        guard url.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw .invalidURL("it contains a space, a control character or a non-ASCII byte")
        }
        guard let colon = url.firstIndex(of: UInt8(ascii: ":")),
            url[colon...].starts(with: "://".utf8)
        else { throw .invalidURL("it is not absolute (no scheme://)") }

        let scheme = url[..<colon]
        let defaultPort: Int
        if equalsIgnoringCase(scheme, Self.http) {
            defaultPort = 80
        } else if equalsIgnoringCase(scheme, Self.https) {
            defaultPort = 443
        } else {
            throw .invalidURL("the scheme must be http or https")
        }

        let (hostStart, hostEnd, authorityEnd) = try hostBounds(url, authorityStart: colon + 3)
        let port = try explicitPort(url[hostEnd..<authorityEnd], unlessItIs: defaultPort)

        let pathEnd =
            url[authorityEnd...].firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? url.endIndex
        var query: String?
        if pathEnd < url.endIndex, url[pathEnd] == UInt8(ascii: "?") {
            let queryEnd = url[pathEnd...].firstIndex(of: UInt8(ascii: "#")) ?? url.endIndex
            query = String(decoding: url[(pathEnd + 1)..<queryEnd], as: UTF8.self)
        }

        // Never longer than the URL: only the "/" of an empty path is added, and userinfo, a default
        // port, leading zeros of a port, the query and the fragment are dropped.
        let value = ByteWriter.string(capacity: url.count + 1) { value in
            for byte in scheme { value.write(lowercased(byte)) }
            value.write("://")
            for byte in url[hostStart..<hostEnd] { value.write(lowercased(byte)) }
            if let port {
                value.write(UInt8(ascii: ":"))
                for digit in String(port).utf8 { value.write(digit) }
            }
            if pathEnd > authorityEnd {
                value.write(url[authorityEnd..<pathEnd])
            } else {
                value.write(UInt8(ascii: "/"))
            }
        }
        return (value, query)
    }

    private static let http = Array("http".utf8)
    private static let https = Array("https".utf8)

    /// True when `bytes` are `lowercaseName` in any letter case.
    private static func equalsIgnoringCase(_ bytes: ArraySlice<UInt8>, _ lowercaseName: [UInt8]) -> Bool {
        bytes.count == lowercaseName.count && zip(bytes, lowercaseName).allSatisfy { lowercased($0) == $1 }
    }

    /// Where the host starts and ends (user info skipped, an IPv6 literal kept with its brackets), and where the
    /// authority ends (RFC 3986 §3.2).
    private static func hostBounds(
        _ url: [UInt8], authorityStart: Int
    ) throws(OAuth1Error) -> (hostStart: Int, hostEnd: Int, authorityEnd: Int) {
        let authorityEnd =
            url[authorityStart...].firstIndex {
                $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#")
            }
            ?? url.endIndex
        var hostStart = authorityStart
        if let at = url[authorityStart..<authorityEnd].lastIndex(of: UInt8(ascii: "@")) { hostStart = at + 1 }
        let hostEnd: Int
        if url[hostStart..<authorityEnd].first == UInt8(ascii: "[") {
            guard let close = url[hostStart..<authorityEnd].firstIndex(of: UInt8(ascii: "]")) else {
                throw .invalidURL("an IPv6 host has no closing ]")
            }
            hostEnd = close + 1
        } else {
            hostEnd = url[hostStart..<authorityEnd].firstIndex(of: UInt8(ascii: ":")) ?? authorityEnd
        }
        guard hostEnd > hostStart else { throw .invalidURL("it has no host") }
        return (hostStart, hostEnd, authorityEnd)
    }

    /// The port in `rest`, what follows the host (`:PORT` or nothing); nil when absent, empty or `defaultPort`,
    /// which the base string URI leaves out (RFC 5849 §3.4.1.2).
    private static func explicitPort(
        _ rest: ArraySlice<UInt8>, unlessItIs defaultPort: Int
    ) throws(OAuth1Error) -> Int? {
        guard let first = rest.first else { return nil }
        guard first == UInt8(ascii: ":") else { throw .invalidURL("the host is followed by junk") }
        var number = 0
        for byte in rest.dropFirst() {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else {
                throw .invalidURL("the port is not a number")
            }
            number = number * 10 + Int(byte - UInt8(ascii: "0"))
            guard number <= 65535 else { throw .invalidURL("the port is above 65535") }
        }
        return rest.count > 1 && number != defaultPort ? number : nil
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 0x20 : byte
    }
}
