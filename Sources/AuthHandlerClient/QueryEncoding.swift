import Foundation

/// `application/x-www-form-urlencoded` pairs as the daemon reads and writes them (HTTP-API.md §3): every byte outside
/// RFC 3986's unreserved set percent-encoded when writing, `+` read as a space.
package enum QueryEncoding {
    /// `name=value&...`, each side percent-encoded.
    package static func encode(_ pairs: [(name: String, value: String)]) -> String {
        pairs.map { escape($0.name) + "=" + escape($0.value) }.joined(separator: "&")
    }

    /// The pairs of a query or form body; nil when a name or value is not valid percent-encoded UTF-8.
    package static func decode(_ text: String) -> [(name: String, value: String)]? {
        var pairs: [(name: String, value: String)] = []
        for field in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = unescape(parts[0]), let value = unescape(parts.count > 1 ? parts[1] : "") else {
                return nil
            }
            pairs.append((name, value))
        }
        return pairs
    }

    /// Every UTF-8 byte outside RFC 3986 §2.3's unreserved set (`A-Z a-z 0-9 - . _ ~`) as `%XX`.
    private static func escape(_ text: String) -> String {
        var escaped = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                escaped.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                escaped +=
                    "%" + String(byte >> 4, radix: 16, uppercase: true)
                    + String(byte & 0x0f, radix: 16, uppercase: true)
            }
        }
        return escaped
    }

    private static func unescape(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
