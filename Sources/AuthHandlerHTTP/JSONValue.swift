import Foundation

/// Any JSON value, kept as received: provider profiles, ID-token claims and backend answers carry
/// members we pass through (`profile.raw`) without a schema, and the config is validated from it so that
/// every problem is reported with its path.
///
/// A number written without a fraction or exponent that fits in 64 bits is `integer`, any other `number`, so that
/// config validation can tell `600` from `1.5`; `integer(7)` and `number(7)` are equal, as they are in JSON. Written
/// only by `serialized(sortingKeys:)` (``JSONWritable``): it is not `Encodable`, so no `JSONEncoder` writes it.
package enum JSONValue: Sendable, Hashable, Decodable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Tries the types in the order of how often they occur in claims and profiles, because each wrong guess costs a
    /// thrown `DecodingError`: strings, integers, booleans, other numbers, objects, arrays. A JSON value is of one type
    /// only, so the order changes nothing but the cost; `Int64` before `Double` keeps whole numbers `integer`.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(value)
        } else {
            self = .array(try container.decode([JSONValue].self))
        }
    }

    package static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let left), .bool(let right)): left == right
        case (.integer(let left), .integer(let right)): left == right
        case (.number(let left), .number(let right)): left == right
        case (.integer(let left), .number(let right)), (.number(let right), .integer(let left)):
            Int64(exactly: right) == left
        case (.string(let left), .string(let right)): left == right
        case (.array(let left), .array(let right)): left == right
        case (.object(let left), .object(let right)): left == right
        default: false
        }
    }

    package func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let value): hasher.combine(value)
        // Equal integers and numbers hash alike: `integer(7) == number(7)`.
        case .integer(let value): hasher.combine(Double(value))
        case .number(let value): hasher.combine(value)
        case .string(let value): hasher.combine(value)
        case .array(let value): hasher.combine(value)
        case .object(let value): hasher.combine(value)
        }
    }

    /// A short name of the value's JSON type, for messages such as "expected a string, got a number".
    package var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer, .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// Reads a JSON document (RFC 8259) with `JSONSyntax`, in time linear in its length; nil when it is not JSON, nests
    /// deeper than `JSONSyntax.defaultMaximumDepth`, or repeats a name within an object.
    ///
    /// Why not `JSONDecoder` and this type's `Decodable` conformance: that tries each JSON type in turn, and with the
    /// cost of each failed try growing with the depth, a 16 KB document (nested `customParameters` at a start) held a
    /// core for seconds. The conformance stays for values this process sealed itself.
    package static func parse(_ bytes: some ContiguousBytes) -> JSONValue? {
        let array = bytes.withUnsafeBytes { Array($0) }
        return try? JSONSyntax.parse(array).get()
    }

    /// The member `key` of an object, or nil.
    package subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The string value, or nil.
    package var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number value (an integer as a `Double`), or nil.
    package var numberValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .number(let value): value
        default: nil
        }
    }

    /// The bool value, or nil.
    package var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The object members, or nil.
    package var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The array elements, or nil.
    package var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// A string, or a number written as an integer string (ids such as GitHub's `id: 583231`).
    package var identifierString: String? {
        switch self {
        case .string(let value): value
        case .integer(let value): String(value)
        case .number(let value) where value.rounded() == value && abs(value) < 9_007_199_254_740_992:
            String(Int64(value))
        default: nil
        }
    }
}
