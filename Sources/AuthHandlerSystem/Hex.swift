/// Base16 (RFC 4648 §8): the one table of hex digits, for every layer that writes or reads them (webhook
/// signatures and store keys in lower case, percent-encoding in upper case, JSON's `\u00XX` escapes).
package enum Hex {
    private static let lowercaseDigits: StaticString = "0123456789abcdef"
    private static let uppercaseDigits: StaticString = "0123456789ABCDEF"

    /// Two lower-case hex digits per byte.
    package static func lowercase(_ bytes: [UInt8]) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { text in
            for (index, byte) in bytes.enumerated() {
                text[2 * index] = digit(byte >> 4, uppercase: false)
                text[2 * index + 1] = digit(byte & 0x0F, uppercase: false)
            }
            return bytes.count * 2
        }
    }

    /// The bytes of an even-length hex string (either case), or nil.
    package static func bytes(_ text: some StringProtocol) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    /// The ASCII digit of `nibble` (0-15).
    package static func digit(_ nibble: UInt8, uppercase: Bool) -> UInt8 {
        (uppercase ? uppercaseDigits : lowercaseDigits).utf8Start[Int(nibble & 0x0F)]
    }

    /// The value of one hex digit, either case; nil for any other byte.
    package static func value(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
