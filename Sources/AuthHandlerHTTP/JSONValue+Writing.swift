import AuthHandlerSystem

extension JSONValue {
    /// The value as compact JSON text (RFC 8259), in one pass without an `Encoder`: strings escape `"`, `\` and the
    /// control characters (§7) and nothing else (`/` as is), whole numbers below 2^53 are written as integers, other
    /// numbers in Swift's shortest round-trip form, object members in the dictionary's order. The daemon's one JSON
    /// serializer (``JSONWritable``): the text is byte for byte what `JSONEncoder` with `.withoutEscapingSlashes`
    /// wrote for the same members, so answers and stored forms did not change when it replaced that encoder.
    package var serialized: [UInt8] { serialized(sortingKeys: false) }

    /// ``serialized``, with every object's members in the order of their names' Unicode scalars when `sortingKeys`
    /// (the same text on every run, as an answer's documented form wants).
    package func serialized(sortingKeys: Bool) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        write(to: &bytes, sortingKeys: sortingKeys)
        return bytes
    }

    private func write(to bytes: inout [UInt8], sortingKeys: Bool) {
        switch self {
        case .null: bytes.append(contentsOf: "null".utf8)
        case .bool(let value): bytes.append(contentsOf: (value ? "true" : "false").utf8)
        case .integer(let value): bytes.append(contentsOf: String(value).utf8)
        case .number(let value):
            if value.rounded() == value, abs(value) < 9_007_199_254_740_992 {
                bytes.append(contentsOf: String(Int64(value)).utf8)
            } else if value.isFinite {
                // Swift's shortest round-trip form ("1.5", "1e-05") is a valid JSON number.
                bytes.append(contentsOf: value.description.utf8)
            } else {
                bytes.append(contentsOf: "null".utf8)
            }
        case .string(let value): Self.write(string: value, to: &bytes)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (offset, element) in elements.enumerated() {
                if offset > 0 { bytes.append(UInt8(ascii: ",")) }
                element.write(to: &bytes, sortingKeys: sortingKeys)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            var first = true
            for (key, member) in sortingKeys ? members.sorted(by: { $0.key < $1.key }) : Array(members) {
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                Self.write(string: key, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                member.write(to: &bytes, sortingKeys: sortingKeys)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// `string` as a JSON string (RFC 8259 §7): quotes, backslashes and control characters escaped, the rest as is.
    package static func write(string: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var text = string
        text.withUTF8 { utf8 in
            // Runs of bytes that need no escape are copied at once.
            var runStart = 0
            for (offset, byte) in utf8.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<offset]))
                runStart = offset + 1
                switch byte {
                case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
                case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
                case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
                // Backspace and form feed by their short escapes too, as `JSONEncoder` wrote them (RFC 8259 §7).
                case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
                case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
                case 0x22, 0x5C: bytes.append(contentsOf: [UInt8(ascii: "\\"), byte])
                default:
                    bytes.append(contentsOf: Array("\\u00".utf8))
                    bytes.append(contentsOf: [
                        Hex.digit(byte >> 4, uppercase: false), Hex.digit(byte, uppercase: false),
                    ])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
