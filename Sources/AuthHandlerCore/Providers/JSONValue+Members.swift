import AuthHandlerHTTP

extension JSONValue {
    /// `value` as a string, or `null` when absent: the result and webhook documents carry every member, as
    /// HTTP-API.md §3.3 shows them.
    static func nullable(_ value: String?) -> JSONValue {
        value.map(JSONValue.string) ?? .null
    }
}

extension Optional<JSONValue> {
    /// An optional string member read back: `.some(nil)` when absent or `null`, `.some(text)` for a string, nil
    /// (refused) for any other type, as `JSONDecoder` read an optional.
    var optionalString: String?? {
        switch self {
        case nil, .null?: .some(nil)
        case .string(let text)?: .some(text)
        default: nil
        }
    }

    /// As ``optionalString``, for a whole number that fits in an `Int`.
    var optionalInt: Int?? {
        switch self {
        case nil, .null?: .some(nil)
        case .integer(let number)?: Int(exactly: number).map { .some($0) }
        default: nil
        }
    }
}
