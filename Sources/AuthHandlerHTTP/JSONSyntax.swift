import AuthHandlerSystem

/// A strict JSON (RFC 8259) reader that locates the first error by line and column, and builds the value.
///
/// Foundation's JSON parsers accept some invalid input (trailing commas) and report errors without a
/// position, so the config loader runs this first to tell the user exactly where the file is broken.
/// It also refuses duplicate object names (compared after unescaping), which JSON parsers resolve silently by
/// keeping one of them (RFC 8259 §4; RFC 7519 §4 allows a JWT reader to refuse them).
///
/// Why not JSONDecoder for outside input (`JSONValue.parse`): decoding the untyped `JSONValue` through `Codable`
/// tries each JSON type in turn, and every failed try costs time in proportion to the nesting depth, so a 16 KB
/// document of nested arrays held a core for seconds. This reader takes each byte once, in time linear in the input,
/// and nests at most `maximumDepth` levels.
package struct JSONSyntax: Sendable {
    /// A syntax error: 1-based line and column, and what was expected there.
    package struct Failure: Sendable, Hashable, Error, CustomStringConvertible {
        package var line: Int
        package var column: Int
        package var message: String

        package var description: String { "invalid JSON at line \(line), column \(column): \(message)" }
    }

    /// The deepest nesting of arrays and objects `parse` accepts by default; documents from providers, backends and
    /// requests nest a few levels.
    package static let defaultMaximumDepth = 64
    /// The deepest nesting a configuration file may have.
    package static let configurationMaximumDepth = 256

    private let bytes: [UInt8]
    private let maximumDepth: Int
    private var offset = 0
    private var depth = 0

    /// Reads a configuration file, which may nest up to `configurationMaximumDepth` levels: its value, or the first
    /// syntax error.
    package static func parseConfiguration(_ bytes: [UInt8]) -> Result<JSONValue, Failure> {
        parse(bytes, maximumDepth: configurationMaximumDepth)
    }

    /// Reads `bytes` as one JSON document: its value, or the first error.
    package static func parse(_ bytes: [UInt8], maximumDepth: Int = defaultMaximumDepth) -> Result<JSONValue, Failure> {
        var reader = JSONSyntax(bytes: bytes, maximumDepth: maximumDepth)
        do throws(Failure) {
            reader.skipWhitespace()
            let value = try reader.value()
            reader.skipWhitespace()
            if reader.offset < bytes.count { throw reader.failure("unexpected text after the top-level value") }
            return .success(value)
        } catch {
            return .failure(error)
        }
    }

    private init(bytes: [UInt8], maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
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

    private mutating func value() throws(Failure) -> JSONValue {
        guard let byte = current else { throw failure("expected a value, found the end of the file") }
        switch byte {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw failure("expected a value, found \(describeCurrent())")
        }
    }

    private mutating func enter() throws(Failure) {
        depth += 1
        if depth > maximumDepth { throw failure("nested more than \(maximumDepth) levels deep") }
    }

    private mutating func object() throws(Failure) -> JSONValue {
        var members: [String: JSONValue] = [:]
        try container(closer: "}", kind: "an object") { reader throws(Failure) in
            guard reader.current == UInt8(ascii: "\"") else {
                throw reader.failure("expected a quoted key, found \(reader.describeCurrent())")
            }
            let keyStart = reader.offset
            let key = try reader.string()
            guard members[key] == nil else {
                reader.offset = keyStart
                throw reader.failure("duplicate key \"\(key)\"; each key may appear once per object")
            }
            reader.skipWhitespace()
            guard reader.current == UInt8(ascii: ":") else {
                throw reader.failure("expected ':' after a key, found \(reader.describeCurrent())")
            }
            reader.offset += 1
            reader.skipWhitespace()
            members[key] = try reader.value()
        }
        return .object(members)
    }

    private mutating func array() throws(Failure) -> JSONValue {
        var elements: [JSONValue] = []
        try container(closer: "]", kind: "an array") { reader throws(Failure) in elements.append(try reader.value()) }
        return .array(elements)
    }

    /// The elements of an object or array, from its opening bracket to `closer`, one `element` call each: separated by
    /// commas, without a trailing one.
    private mutating func container(
        closer: Unicode.Scalar, kind: String, element: (inout JSONSyntax) throws(Failure) -> Void
    ) throws(Failure) {
        try enter()
        offset += 1
        skipWhitespace()
        let close = UInt8(ascii: closer)
        if current == close {
            offset += 1
            depth -= 1
            return
        }
        while true {
            try element(&self)
            skipWhitespace()
            if current == UInt8(ascii: ",") {
                offset += 1
                skipWhitespace()
                if current == close { throw failure("trailing comma before '\(closer)'") }
                continue
            }
            guard current == close else {
                throw failure("expected ',' or '\(closer)' in \(kind), found \(describeCurrent())")
            }
            offset += 1
            depth -= 1
            return
        }
    }

    /// A string's value with its escapes resolved (RFC 8259 §7); its bytes must be UTF-8 and a `\u` escape of a
    /// surrogate must be half of a pair.
    private mutating func string() throws(Failure) -> String {
        offset += 1
        var decoded: [UInt8] = []
        var runStart = offset
        while let byte = current {
            switch byte {
            case UInt8(ascii: "\""):
                decoded.append(contentsOf: bytes[runStart..<offset])
                guard let text = String(validating: decoded, as: UTF8.self) else {
                    throw failure("a string is not valid UTF-8")
                }
                offset += 1
                return text
            case UInt8(ascii: "\\"):
                decoded.append(contentsOf: bytes[runStart..<offset])
                offset += 1
                try escape(into: &decoded)
                runStart = offset
            case 0x00..<0x20:
                throw failure("control character in a string; write it as an escape such as \\n")
            default:
                offset += 1
            }
        }
        throw failure("unterminated string")
    }

    /// The escape after a backslash, appended to `decoded` as UTF-8.
    private mutating func escape(into decoded: inout [UInt8]) throws(Failure) {
        guard let escaped = current else { throw failure("unterminated string") }
        offset += 1
        let simple: UInt8? =
            switch escaped {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): escaped
            case UInt8(ascii: "b"): 0x08
            case UInt8(ascii: "f"): 0x0C
            case UInt8(ascii: "n"): 0x0A
            case UInt8(ascii: "r"): 0x0D
            case UInt8(ascii: "t"): 0x09
            default: nil
            }
        if let simple {
            decoded.append(simple)
            return
        }
        guard escaped == UInt8(ascii: "u") else {
            offset -= 1
            throw failure("invalid escape \\\(Character(Unicode.Scalar(escaped)))")
        }
        var scalar = try hexQuad()
        if (0xD800..<0xDC00).contains(scalar) {
            guard current == UInt8(ascii: "\\"), offset + 1 < bytes.count, bytes[offset + 1] == UInt8(ascii: "u")
            else { throw failure("a \\u escape of a high surrogate must be followed by its low surrogate") }
            offset += 2
            let low = try hexQuad()
            guard (0xDC00..<0xE000).contains(low) else {
                throw failure("a \\u escape of a high surrogate must be followed by its low surrogate")
            }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let unicode = Unicode.Scalar(scalar) else {
            throw failure("a \\u escape of a low surrogate must follow a high surrogate")
        }
        decoded.append(contentsOf: String(Character(unicode)).utf8)
    }

    private mutating func hexQuad() throws(Failure) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current, let digit = Hex.value(byte) else {
                throw failure("expected four hex digits after \\u")
            }
            value = value << 4 | UInt32(digit)
            offset += 1
        }
        return value
    }

    private mutating func literal(_ word: String) throws(Failure) {
        for expected in word.utf8 {
            guard current == expected else { throw failure("expected '\(word)', found \(describeCurrent())") }
            offset += 1
        }
    }

    /// An integer without fraction or exponent that fits in 64 bits is `integer`, any other number `number`.
    private mutating func number() throws(Failure) -> JSONValue {
        let start = offset
        var integral = true
        if current == UInt8(ascii: "-") { offset += 1 }
        guard let first = current, Self.isDigit(first) else {
            throw failure("expected a digit, found \(describeCurrent())")
        }
        offset += 1
        if first != UInt8(ascii: "0") {
            while let byte = current, Self.isDigit(byte) { offset += 1 }
        }
        if current == UInt8(ascii: ".") {
            integral = false
            offset += 1
            guard let byte = current, Self.isDigit(byte) else {
                throw failure("expected a digit after '.', found \(describeCurrent())")
            }
            while let byte = current, Self.isDigit(byte) { offset += 1 }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            integral = false
            offset += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { offset += 1 }
            guard let byte = current, Self.isDigit(byte) else {
                throw failure("expected a digit in the exponent, found \(describeCurrent())")
            }
            while let byte = current, Self.isDigit(byte) { offset += 1 }
        }
        let text = String(decoding: bytes[start..<offset], as: UTF8.self)
        if integral, let integer = Int64(text) { return .integer(integer) }
        guard let number = Double(text), number.isFinite else {
            offset = start
            throw failure("a number too large for a 64-bit float")
        }
        return .number(number)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
