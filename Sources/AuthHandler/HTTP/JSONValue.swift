import Foundation

/// Any JSON value, kept as received: provider profiles, ID-token claims and backend answers carry
/// members we pass through (`profile.raw`) without a schema.
public enum JSONValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            // Integers (ids, timestamps) are written without a fraction, as they were received.
            if value.rounded() == value, abs(value) < 9_007_199_254_740_992 {
                try container.encode(Int64(value))
            } else {
                try container.encode(value)
            }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// Decodes a JSON document; nil when it is not JSON.
    public static func parse(_ bytes: some ContiguousBytes) -> JSONValue? {
        let data = bytes.withUnsafeBytes { Data($0) }
        return try? JSONDecoder().decode(JSONValue.self, from: data)
    }

    /// The member `key` of an object, or nil.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The string value, or nil.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number value, or nil.
    public var numberValue: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The bool value, or nil.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The object members, or nil.
    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The array elements, or nil.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// A string, or a number written as an integer string (ids such as GitHub's `id: 583231`).
    public var identifierString: String? {
        switch self {
        case .string(let value): value
        case .number(let value) where value.rounded() == value && abs(value) < 9_007_199_254_740_992:
            String(Int64(value))
        default: nil
        }
    }
}
