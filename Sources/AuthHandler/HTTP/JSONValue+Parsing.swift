/// A direct JSON reader (RFC 8259) for ``JSONValue/parse(_:)``: one pass over the bytes, no `Decoder`.
///
/// Why not `JSONDecoder`: decoding a `JSONValue` through `Decodable` must guess each value's type by trying them in
/// turn, and every wrong guess builds and throws a `DecodingError`; a token response, an ID token's claims and a
/// userinfo document cost more than the rest of a sign-in's request handling together (BENCHMARKS.md). This reader
/// accepts and produces what `JSONDecoder` did for the same bytes, quirks included, so a document parses the same
/// either way:
/// - a number without fraction or exponent is `integer` when it fits in 64 bits, else `number`; one with a fraction
///   or exponent is `integer` when its value is a whole number that fits (`1.0`, `1e3`), else `number`; one whose
///   value is out of `Double`'s range refuses the document;
/// - of repeated object members the first is kept;
/// - a trailing comma before `]` or `}` is accepted (not a lone one: `[,]`);
/// - a leading UTF-8 byte order mark is skipped; strings must be valid UTF-8, escapes must not leave a lone
///   surrogate, and control characters must be escaped (RFC 8259 §7);
/// - at most 512 arrays and objects deep.
struct JSONReader {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0

    static let maximumDepth = 512

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// The document in `bytes`, or nil when it is not one JSON value (whitespace around it allowed).
    static func parse(_ bytes: UnsafeRawBufferPointer) -> JSONValue? {
        var reader = JSONReader(bytes.bindMemory(to: UInt8.self))
        if reader.bytes.count >= 3, reader.bytes[0] == 0xEF, reader.bytes[1] == 0xBB, reader.bytes[2] == 0xBF {
            reader.index = 3
        }
        guard let value = reader.value() else { return nil }
        reader.skipWhitespace()
        return reader.index == reader.bytes.count ? value : nil
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func value() -> JSONValue? {
        skipWhitespace()
        guard let byte = current else { return nil }
        switch byte {
        case UInt8(ascii: "\""): return string().map(JSONValue.string)
        case UInt8(ascii: "{"): return object()
        case UInt8(ascii: "["): return array()
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "n"): return literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
        default: return nil
        }
    }

    private mutating func literal(_ word: StaticString, _ value: JSONValue) -> JSONValue? {
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count else { return nil }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return nil }
        index += count
        return value
    }

    private mutating func array() -> JSONValue? {
        var elements: [JSONValue] = []
        let read = container(closing: UInt8(ascii: "]")) { reader in
            guard let element = reader.value() else { return false }
            elements.append(element)
            return true
        }
        return read ? .array(elements) : nil
    }

    private mutating func object() -> JSONValue? {
        var members: [String: JSONValue] = [:]
        let read = container(closing: UInt8(ascii: "}")) { reader in
            reader.skipWhitespace()
            guard reader.current == UInt8(ascii: "\""), let key = reader.string() else { return false }
            reader.skipWhitespace()
            guard reader.current == UInt8(ascii: ":") else { return false }
            reader.index += 1
            guard let member = reader.value() else { return false }
            if members[key] == nil { members[key] = member }
            return true
        }
        return read ? .object(members) : nil
    }

    /// Reads an array's or object's elements with `element`, from its opening bracket through `closing`; false when
    /// the text is no such container or it is nested too deep.
    private mutating func container(closing: UInt8, _ element: (inout JSONReader) -> Bool) -> Bool {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else { return false }
        index += 1
        skipWhitespace()
        while current != closing {
            guard element(&self) else { return false }
            skipWhitespace()
            guard current == UInt8(ascii: ",") else { break }
            index += 1
            skipWhitespace()
        }
        guard current == closing else { return false }
        index += 1
        return true
    }

    /// A string starting at the opening quote; the common case without escapes is one copy of the bytes.
    private mutating func string() -> String? {
        index += 1
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = String(validating: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { return escapedString(from: start) }
            if byte < 0x20 { return nil }
            index += 1
        }
        return nil
    }

    /// The rest of a string that holds escapes, from `start` (just after the opening quote).
    private mutating func escapedString(from start: Int) -> String? {
        var utf8 = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(validating: utf8, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index += 1
                guard let escape = current else { return nil }
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    guard let scalar = unicodeEscape() else { return nil }
                    utf8.append(contentsOf: scalar.utf8)
                default: return nil
                }
            default:
                if byte < 0x20 { return nil }
                utf8.append(byte)
                index += 1
            }
        }
        return nil
    }

    /// The scalar of `XXXX` after `\u`, joining a surrogate pair (`\uD83D\uDE00`); nil for a lone surrogate.
    private mutating func unicodeEscape() -> Unicode.Scalar? {
        guard let unit = hexQuad() else { return nil }
        switch unit {
        case 0xD800...0xDBFF:
            guard bytes.count - index >= 2, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
            else { return nil }
            index += 2
            guard let low = hexQuad(), (0xDC00...0xDFFF).contains(low) else { return nil }
            return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
        case 0xDC00...0xDFFF:
            return nil
        default:
            return Unicode.Scalar(unit)
        }
    }

    private mutating func hexQuad() -> UInt32? {
        guard bytes.count - index >= 4 else { return nil }
        var unit: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            unit = unit << 4 | UInt32(digit)
            index += 1
        }
        return unit
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?` (RFC 8259 §6).
    private mutating func number() -> JSONValue? {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, isDigit(first) else { return nil }
        index += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        var whole = true
        if current == UInt8(ascii: ".") {
            whole = false
            index += 1
            guard let digit = current, isDigit(digit) else { return nil }
            skipDigits()
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            whole = false
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard let digit = current, isDigit(digit) else { return nil }
            skipDigits()
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if whole, let integer = Int64(text) { return .integer(integer) }
        guard let double = Double(text), double.isFinite else { return nil }
        if !whole, let integer = Int64(exactly: double) { return .integer(integer) }
        return .number(double)
    }

    private mutating func skipDigits() {
        while let byte = current, isDigit(byte) { index += 1 }
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
