/// A strict JSON syntax check that locates the first error by line and column.
///
/// Foundation's JSON parsers accept some invalid input (trailing commas) and report errors without a
/// position, so the loader runs this first to tell the user exactly where the file is broken.
/// It also refuses duplicate object keys, which JSON parsers resolve silently by keeping one of them.
public struct ConfigJSONSyntax: Sendable {
    /// A syntax error: 1-based line and column, and what was expected there.
    public struct Failure: Sendable, Hashable, Error, CustomStringConvertible {
        public var line: Int
        public var column: Int
        public var message: String

        public var description: String { "invalid JSON at line \(line), column \(column): \(message)" }
    }

    private let bytes: [UInt8]
    private var offset = 0
    private var depth = 0
    private static let maximumDepth = 256

    /// Checks `bytes`; returns the first syntax error, or nil when the document is valid JSON.
    public static func firstError(in bytes: [UInt8]) -> Failure? {
        var scanner = ConfigJSONSyntax(bytes: bytes)
        do throws(Failure) {
            scanner.skipWhitespace()
            try scanner.value()
            scanner.skipWhitespace()
            if scanner.offset < bytes.count { throw scanner.failure("unexpected text after the top-level value") }
            return nil
        } catch {
            return error
        }
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private func failure(_ message: String) -> Failure {
        var line = 1
        var column = 1
        var index = 0
        while index < offset && index < bytes.count {
            if bytes[index] == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if bytes[index] & 0xC0 != 0x80 {
                column += 1
            }
            index += 1
        }
        return Failure(line: line, column: column, message: message)
    }

    private var current: UInt8? { offset < bytes.count ? bytes[offset] : nil }

    private func describeCurrent() -> String {
        guard let byte = current else { return "the end of the file" }
        if byte >= 0x20 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(String(byte, radix: 16))"
    }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { offset += 1 }
    }

    private mutating func value() throws(Failure) {
        guard let byte = current else { throw failure("expected a value, found the end of the file") }
        switch byte {
        case UInt8(ascii: "{"): try object()
        case UInt8(ascii: "["): try array()
        case UInt8(ascii: "\""): _ = try string()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
        default: throw failure("expected a value, found \(describeCurrent())")
        }
    }

    private mutating func enter() throws(Failure) {
        depth += 1
        if depth > Self.maximumDepth { throw failure("nested more than \(Self.maximumDepth) levels deep") }
    }

    private mutating func object() throws(Failure) {
        try enter()
        offset += 1
        skipWhitespace()
        var keys = Set<String>()
        if current == UInt8(ascii: "}") {
            offset += 1
            depth -= 1
            return
        }
        while true {
            guard current == UInt8(ascii: "\"") else {
                throw failure("expected a quoted key, found \(describeCurrent())")
            }
            let keyStart = offset
            let key = try string()
            if !keys.insert(key).inserted {
                offset = keyStart
                throw failure("duplicate key \"\(key)\"; each key may appear once per object")
            }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else {
                throw failure("expected ':' after a key, found \(describeCurrent())")
            }
            offset += 1
            skipWhitespace()
            try value()
            skipWhitespace()
            if current == UInt8(ascii: ",") {
                offset += 1
                skipWhitespace()
                if current == UInt8(ascii: "}") { throw failure("trailing comma before '}'") }
                continue
            }
            guard current == UInt8(ascii: "}") else {
                throw failure("expected ',' or '}' in an object, found \(describeCurrent())")
            }
            offset += 1
            depth -= 1
            return
        }
    }

    private mutating func array() throws(Failure) {
        try enter()
        offset += 1
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            offset += 1
            depth -= 1
            return
        }
        while true {
            try value()
            skipWhitespace()
            if current == UInt8(ascii: ",") {
                offset += 1
                skipWhitespace()
                if current == UInt8(ascii: "]") { throw failure("trailing comma before ']'") }
                continue
            }
            guard current == UInt8(ascii: "]") else {
                throw failure("expected ',' or ']' in an array, found \(describeCurrent())")
            }
            offset += 1
            depth -= 1
            return
        }
    }

    private mutating func string() throws(Failure) -> String {
        offset += 1
        let start = offset
        while let byte = current {
            switch byte {
            case UInt8(ascii: "\""):
                let raw = bytes[start..<offset]
                offset += 1
                // Duplicate keys are compared in their raw, escaped form; escapes in keys are rare.
                return String(decoding: raw, as: UTF8.self)
            case UInt8(ascii: "\\"):
                offset += 1
                guard let escaped = current else { break }
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                    UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    offset += 1
                case UInt8(ascii: "u"):
                    offset += 1
                    for _ in 0..<4 {
                        guard let hex = current, Self.isHexDigit(hex) else {
                            throw failure("expected four hex digits after \\u")
                        }
                        offset += 1
                    }
                default:
                    throw failure("invalid escape \\\(Character(Unicode.Scalar(escaped)))")
                }
            case 0x00..<0x20:
                throw failure("control character in a string; write it as an escape such as \\n")
            default:
                offset += 1
            }
        }
        throw failure("unterminated string")
    }

    private mutating func literal(_ word: String) throws(Failure) {
        for expected in word.utf8 {
            guard current == expected else { throw failure("expected '\(word)', found \(describeCurrent())") }
            offset += 1
        }
    }

    private mutating func number() throws(Failure) {
        if current == UInt8(ascii: "-") { offset += 1 }
        guard let first = current, Self.isDigit(first) else {
            throw failure("expected a digit, found \(describeCurrent())")
        }
        offset += 1
        if first != UInt8(ascii: "0") {
            while let byte = current, Self.isDigit(byte) { offset += 1 }
        }
        if current == UInt8(ascii: ".") {
            offset += 1
            guard let byte = current, Self.isDigit(byte) else {
                throw failure("expected a digit after '.', found \(describeCurrent())")
            }
            while let byte = current, Self.isDigit(byte) { offset += 1 }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            offset += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { offset += 1 }
            guard let byte = current, Self.isDigit(byte) else {
                throw failure("expected a digit in the exponent, found \(describeCurrent())")
            }
            while let byte = current, Self.isDigit(byte) { offset += 1 }
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "F"))
    }
}
