import Foundation

/// Base64 (RFC 4648 §4) and base64url without padding (§5), as JOSE and PKCE use it.
package enum Base64 {
    /// Standard base64 with padding.
    package static func encode(_ bytes: some ContiguousBytes) -> String {
        bytes.withUnsafeBytes { encode($0, alphabet: standardAlphabet, padded: true) }
    }

    /// Decodes standard base64 (padding required); nil when the input is not base64.
    package static func decode(_ string: String) -> [UInt8]? {
        let utf8 = Array(string.utf8)
        guard utf8.count % 4 == 0, isWellFormed(utf8, extraAlphabet: (UInt8(ascii: "+"), UInt8(ascii: "/"))) else {
            return nil
        }
        return Data(base64Encoded: Data(utf8)).map { [UInt8]($0) }
    }

    /// base64url without `=` padding.
    package static func urlEncode(_ bytes: some ContiguousBytes) -> String {
        bytes.withUnsafeBytes { encode($0, alphabet: urlAlphabet, padded: false) }
    }

    package static let standardAlphabet: StaticString =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    static let urlAlphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

    /// Encodes `bytes` with the 64-character `alphabet` (§4 or §5), each 3 bytes into 4 characters, the
    /// last group padded with `=` when `padded`. The string is allocated once, at its final length.
    package static func encode(_ bytes: UnsafeRawBufferPointer, alphabet: StaticString, padded: Bool) -> String {
        let remainder = bytes.count % 3
        let tail = remainder == 0 ? 0 : (padded ? 4 : remainder + 1)
        let length = bytes.count / 3 * 4 + tail
        guard length > 0 else { return "" }
        let symbols = alphabet.utf8Start
        return String(unsafeUninitializedCapacity: length) { output in
            var written = 0
            func put(_ sextet: UInt32) {
                output[written] = symbols[Int(sextet & 0x3F)]
                written += 1
            }
            var index = 0
            while index + 3 <= bytes.count {
                let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
                put(group >> 18)
                put(group >> 12)
                put(group >> 6)
                put(group)
                index += 3
            }
            if remainder > 0 {
                let second = remainder == 2 ? UInt32(bytes[index + 1]) : 0
                let group = UInt32(bytes[index]) << 16 | second << 8
                put(group >> 18)
                put(group >> 12)
                if remainder == 2 { put(group >> 6) }
                while padded, written < length {
                    output[written] = UInt8(ascii: "=")
                    written += 1
                }
            }
            return written
        }
    }

    /// Decodes base64url with or without padding; nil when the input has characters outside the
    /// base64url alphabet (a `+` or `/` is refused, as RFC 7515 §2 requires).
    package static func urlDecode(_ string: String) -> [UInt8]? {
        var utf8 = Array(string.utf8)
        guard isWellFormed(utf8, extraAlphabet: (UInt8(ascii: "-"), UInt8(ascii: "_"))) else { return nil }
        while utf8.last == UInt8(ascii: "=") { utf8.removeLast() }
        if utf8.count % 4 == 1 { return nil }
        for index in utf8.indices {
            switch utf8[index] {
            case UInt8(ascii: "-"): utf8[index] = UInt8(ascii: "+")
            case UInt8(ascii: "_"): utf8[index] = UInt8(ascii: "/")
            default: break
            }
        }
        while utf8.count % 4 != 0 { utf8.append(UInt8(ascii: "=")) }
        return Data(base64Encoded: Data(utf8)).map { [UInt8]($0) }
    }

    /// True when `utf8` is alphabet characters followed by at most two `=`.
    ///
    /// corelibs-foundation's `Data(base64Encoded:)` accepts `=` in the middle (`"Zg=a"` decodes), so
    /// the shape is checked here before it sees the input.
    private static func isWellFormed(_ utf8: [UInt8], extraAlphabet: (UInt8, UInt8)) -> Bool {
        let body = utf8.prefix { $0 != UInt8(ascii: "=") }
        let padding = utf8.count - body.count
        guard padding <= 2, utf8.suffix(padding).allSatisfy({ $0 == UInt8(ascii: "=") }) else { return false }
        return body.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            default:
                byte == extraAlphabet.0 || byte == extraAlphabet.1
            }
        }
    }
}
