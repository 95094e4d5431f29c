import AuthHandlerCrypto
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// How text that is not plain ASCII goes into a header field, and the `Date` field's format.
enum MailHeaderEncoding {
    /// The most UTF-8 bytes one encoded word carries: 39 bytes are 52 base64 characters, with `=?utf-8?B?` and `?=` a
    /// word of 64 characters, so that even after `From: ` the line is within RFC 2047 §2's 76.
    static let bytesPerWord = 39

    /// `text` as RFC 2047 encoded words (`=?utf-8?B?…?=`, §4.1), split between characters so that no word ends inside
    /// a UTF-8 sequence (§5: each word must stand alone).
    static func encodedWords(_ text: String) -> [String] {
        var words: [String] = []
        var chunk: [UInt8] = []
        for scalar in text.unicodeScalars {
            let bytes = Array(String(scalar).utf8)
            if chunk.count + bytes.count > bytesPerWord {
                words.append(word(chunk))
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty || words.isEmpty { words.append(word(chunk)) }
        return words
    }

    private static func word(_ bytes: [UInt8]) -> String {
        "=?utf-8?B?" + Base64.encode(bytes) + "?="
    }

    /// `date` as RFC 5322 §3.3's `date-time` in UTC, e.g. `Wed, 02 Dec 2026 18:20:58 +0000`; English names, whatever
    /// the locale.
    static func dateTime(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let twoDigits = { (value: Int32) in value < 10 ? "0\(value)" : "\(value)" }
        let day = days[Int(parts.tm_wday) % 7]
        let month = months[Int(parts.tm_mon) % 12]
        let time = "\(twoDigits(parts.tm_hour)):\(twoDigits(parts.tm_min)):\(twoDigits(parts.tm_sec))"
        return "\(day), \(twoDigits(parts.tm_mday)) \(month) \(parts.tm_year + 1900) \(time) +0000"
    }
}

/// The quoted-printable transfer encoding (RFC 2045 §6.7) of a text body: every line of the result is at most 76
/// characters, far below RFC 5322's 998, whatever the text's own lines are.
///
/// Beyond the RFC's rules, a `.` that would start a line is written `=2E` and an `F` that would start `From ` is
/// written `=46` (RFC 2049 §3, items 7 and 8), so that no SMTP server's dot handling or mbox file can alter the body.
enum QuotedPrintable {
    /// The longest encoded line, soft line break included (RFC 2045 §6.7, rule 5).
    static let maximumLineLength = 76

    /// Encodes `text`, whose lines end in LF or CRLF, into lines that end in CRLF.
    static func encode(_ text: String) -> String {
        var output = ""
        let lines = text.replacing("\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false)
        for (index, line) in lines.enumerated() {
            if index > 0 { output += "\r\n" }
            output += encodeLine(Array(line.utf8))
        }
        return output
    }

    private static func encodeLine(_ bytes: [UInt8]) -> String {
        var output = ""
        var column = 0
        for (index, byte) in bytes.enumerated() {
            let isLast = index == bytes.count - 1
            let atLineStart = column == 0
            var token = literal(byte, isLast: isLast) ?? escaped(byte)
            if atLineStart, byte == UInt8(ascii: ".") || startsFrom(bytes, at: index) { token = escaped(byte) }
            // A soft break needs one column for its "=", unless this token ends the line.
            let limit = isLast ? maximumLineLength : maximumLineLength - 1
            if column + token.utf8.count > limit {
                output += "=\r\n"
                column = 0
                if byte == UInt8(ascii: ".") || startsFrom(bytes, at: index) { token = escaped(byte) }
            }
            output += token
            column += token.utf8.count
        }
        return output
    }

    /// The byte as itself when the RFC lets it stand (printable ASCII but `=`; space and tab except at the end of
    /// a line), else nil.
    private static func literal(_ byte: UInt8, isLast: Bool) -> String? {
        switch byte {
        case 33...60, 62...126: String(UnicodeScalar(byte))
        case UInt8(ascii: " "), UInt8(ascii: "\t"): isLast ? nil : String(UnicodeScalar(byte))
        default: nil
        }
    }

    private static func escaped(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return "=" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0x0F)])
    }

    private static func startsFrom(_ bytes: [UInt8], at index: Int) -> Bool {
        bytes[index...].starts(with: "From ".utf8)
    }
}
