import AuthHandlerHTTP
import AuthHandlerSystem
import Foundation

/// Decides where the handler may send the browser back (`allowedRedirectURLs`, HTTP-API.md §2.7).
///
/// A `redirectUrl` matches an entry when scheme, host, port and path are equal — no prefixes, no wildcards,
/// no normalisation. For a loopback host (`127.0.0.1`, `[::1]`) an entry without a port matches any port
/// (RFC 8252 §7.3). Anything a browser might read differently from us is refused before matching: no
/// backslashes, whitespace, control or non-ASCII characters, percent-escapes in the authority, user info,
/// fragments, dot segments in the path, or a port outside 1...65535.
///
/// A `redirectUrl` whose query already holds a name the handler adds on the way back (`code`, `eventId`,
/// `error`, `error_description`; HTTP-API.md §3.1) is refused too: the app could read the planted value
/// instead of the handler's. Names are compared after percent-decoding (repeatedly, so `c%256Fde` counts),
/// without regard to case, and with the spellings that web frameworks fold together (`+` and `.` as `_`,
/// a `[...]` suffix dropped); both `&` and `;` separate pairs.
package struct RedirectURLPolicy: Sendable {
    /// One parsed entry (or candidate): the parts that are compared.
    struct Target: Sendable, Equatable {
        var scheme: String
        var host: String?
        var port: Int?
        var path: String
    }

    private let entries: [Target]

    /// Entries that do not parse are dropped here; `check-config` reports them.
    package init(allowed: [String]) {
        entries = allowed.compactMap { Self.parse($0) }
    }

    /// Whether `candidate` may receive the browser.
    package func allows(_ candidate: String) -> Bool {
        guard let target = Self.parse(candidate) else { return false }
        return entries.contains { entry in
            guard entry.scheme == target.scheme, entry.host == target.host, entry.path == target.path else {
                return false
            }
            if entry.port == target.port { return true }
            return entry.port == nil && Self.isLoopback(entry.host)
        }
    }

    /// `candidate` with `fields` added to its query, for the 303 back to the app.
    package static func appending(_ fields: [URLFormField], to candidate: String) -> String {
        guard !fields.isEmpty else { return candidate }
        let separator =
            candidate.utf8.contains(UInt8(ascii: "?"))
            ? (candidate.hasSuffix("?") || candidate.hasSuffix("&") ? "" : "&") : "?"
        return candidate + separator + FormURLEncoding.encode(fields)
    }

    static func isLoopback(_ host: String?) -> Bool {
        host == "127.0.0.1" || host == "[::1]"
    }

    /// Parses strictly; nil for anything ambiguous.
    static func parse(_ text: String) -> Target? {
        guard !text.isEmpty, text.utf8.count <= 2048 else { return nil }
        for byte in text.utf8 {
            // Printable ASCII only, and never a backslash (browsers treat it as a slash in special schemes).
            guard byte > 0x20, byte < 0x7f, byte != UInt8(ascii: "\\") else { return nil }
        }
        guard !text.utf8.contains(UInt8(ascii: "#")), let components = URLComponents(string: text),
            let scheme = components.scheme?.lowercased(), !scheme.isEmpty
        else { return nil }
        // The encoded forms: `user` is nil when the user info's escapes do not decode to UTF-8.
        guard components.percentEncodedUser == nil, components.percentEncodedPassword == nil else { return nil }
        let percentHost = components.percentEncodedHost
        if let percentHost, percentHost.utf8.contains(UInt8(ascii: "%")) { return nil }
        let path = components.percentEncodedPath
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard !segments.contains(where: { $0 == "." || $0 == ".." || $0.lowercased().contains("%2e") }) else {
            return nil
        }
        var host = percentHost?.lowercased()
        if let candidate = host, candidate.utf8.contains(UInt8(ascii: ":")), !candidate.hasPrefix("[") {
            host = "[\(candidate)]"
        }
        if scheme == "http" || scheme == "https" {
            // Web URLs need a host and an absolute path; `https:/x` or `https:x` are refused.
            guard let host, !host.isEmpty, text.lowercased().hasPrefix(scheme + "://") else { return nil }
            guard path.isEmpty || path.hasPrefix("/") else { return nil }
        } else {
            // Custom-scheme app URLs (`com.example.app:/auth`); script-capable schemes never.
            guard !["javascript", "data", "vbscript", "file", "blob", "about"].contains(scheme) else { return nil }
        }
        if let percentQuery = components.percentEncodedQuery, queryHoldsHandlerName(percentQuery) { return nil }
        var port = components.port
        if let explicit = port, !(1...65535).contains(explicit) { return nil }
        if (scheme == "https" && port == 443) || (scheme == "http" && port == 80) { port = nil }
        return Target(scheme: scheme, host: host, port: port, path: path)
    }

    /// The query names the handler adds to `redirectUrl` (HTTP-API.md §3.2), lowercased.
    static let handlerQueryNames: Set<String> = ["code", "eventid", "error", "error_description"]

    /// Whether a raw (percent-encoded) query holds one of ``handlerQueryNames`` in any spelling an app's
    /// parser might decode to it, or a name that does not decode cleanly.
    static func queryHoldsHandlerName(_ query: String) -> Bool {
        let separators: Set<UInt8> = [UInt8(ascii: "&"), UInt8(ascii: ";")]
        for pair in query.utf8.split(whereSeparator: { separators.contains($0) }) {
            let rawName = pair.prefix { $0 != UInt8(ascii: "=") }
            guard let name = canonicalName(Array(rawName)) else { return true }
            if handlerQueryNames.contains(name) { return true }
        }
        return false
    }

    /// The name as a lenient parser reads it: `+` as space, percent-decoded until stable, ASCII-lowercased,
    /// spaces trimmed, `[...]` dropped, `.` and space as `_`. Nil when an escape is malformed or decoding
    /// does not settle.
    static func canonicalName(_ raw: [UInt8]) -> String? {
        var bytes = raw.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 }
        var rounds = 0
        while bytes.contains(UInt8(ascii: "%")) {
            rounds += 1
            guard rounds <= 4, let decoded = RFC3986.percentDecoded(bytes, plusAsSpace: false) else { return nil }
            bytes = decoded
        }
        var name = String(decoding: bytes, as: UTF8.self).lowercased()
        if let bracket = name.firstIndex(of: "[") { name = String(name[..<bracket]) }
        name = name.trimmingCharacters(in: .whitespaces)
        return String(name.map { $0 == "." || $0 == " " ? "_" : $0 })
    }
}
