extension AuthHandlerClient {
    /// A JSON value whose shape the daemon does not fix: the provider's own profile document (`profile.raw`), the
    /// sign-in backend's answer (`signIn`) and Identity Toolkit's `mfaInfo` (HTTP-API.md §3.3).
    ///
    /// Whole numbers are kept as `integer` so that 64-bit ids (Twitter's, for one) survive exactly.
    public enum JSON: Sendable, Hashable, Codable {
        case null
        case bool(Bool)
        case integer(Int64)
        case number(Double)
        case string(String)
        case array([JSON])
        case object([String: JSON])

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let value = try? container.decode(Bool.self) {
                self = .bool(value)
            } else if let value = try? container.decode(Int64.self) {
                self = .integer(value)
            } else if let value = try? container.decode(Double.self) {
                self = .number(value)
            } else if let value = try? container.decode(String.self) {
                self = .string(value)
            } else if let value = try? container.decode([JSON].self) {
                self = .array(value)
            } else {
                self = .object(try container.decode([String: JSON].self))
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .null: try container.encodeNil()
            case .bool(let value): try container.encode(value)
            case .integer(let value): try container.encode(value)
            case .number(let value): try container.encode(value)
            case .string(let value): try container.encode(value)
            case .array(let value): try container.encode(value)
            case .object(let value): try container.encode(value)
            }
        }

        /// The member `name` of an object; nil for anything else or a missing member.
        public subscript(name: String) -> JSON? {
            if case .object(let members) = self { members[name] } else { nil }
        }

        /// The element at `index` of an array; nil for anything else or an index out of range.
        public subscript(index: Int) -> JSON? {
            if case .array(let elements) = self, elements.indices.contains(index) { elements[index] } else { nil }
        }

        public var stringValue: String? {
            if case .string(let value) = self { value } else { nil }
        }

        public var boolValue: Bool? {
            if case .bool(let value) = self { value } else { nil }
        }

        public var arrayValue: [JSON]? {
            if case .array(let value) = self { value } else { nil }
        }

        public var objectValue: [String: JSON]? {
            if case .object(let value) = self { value } else { nil }
        }
    }
}
