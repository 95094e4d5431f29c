import AuthHandler
import Foundation
import Testing

/// `JSONValue`: the one JSON value of the HTTP layer, the providers and the config.
struct HTTPJSONValueTests {
    @Test func wholeNumbersAreIntegersAndOthersNumbers() throws {
        let value = try #require(JSONValue.parse(Data(#"{"ttl": 600, "half": 1.5, "id": 583231, "big": 1e300}"#.utf8)))
        guard case .integer(600) = try #require(value["ttl"]) else {
            Issue.record("600 is not an integer: \(String(describing: value["ttl"]))")
            return
        }
        guard case .number(1.5) = try #require(value["half"]) else {
            Issue.record("1.5 is not a number: \(String(describing: value["half"]))")
            return
        }
        #expect(value["id"]?.identifierString == "583231")
        #expect(value["id"]?.numberValue == 583231)
        #expect(value["big"]?.numberValue == 1e300)
        #expect(value["ttl"]?.typeName == "a number" && value["half"]?.typeName == "a number")
    }

    @Test func anIntegerEqualsTheSameNumber() {
        #expect(JSONValue.integer(7) == .number(7))
        #expect(JSONValue.number(7) == .integer(7))
        #expect(JSONValue.integer(7) != .number(7.5))
        #expect(Set<JSONValue>([.integer(7), .number(7)]).count == 1)
    }

    @Test func encodingIsAsReceived() throws {
        let text = #"[1,1.5,-2,123456789012,0.25,true,null,"x",{"a":[]}]"#
        let value = try #require(JSONValue.parse(Data(text.utf8)))
        let encoded = try JSONEncoder().encode(value)
        #expect(String(decoding: encoded, as: UTF8.self) == text)
        let built = JSONValue.array([.number(1), .number(1.5), .integer(-2)])
        #expect(String(decoding: try JSONEncoder().encode(built), as: UTF8.self) == "[1,1.5,-2]")
    }
}

/// `JSONValue.parse` reads documents itself (`JSONReader`); it must accept and produce what `JSONDecoder` does for
/// the same bytes, quirks included.
struct HTTPJSONReaderTests {
    static let documents: [String] = [
        #"{"iss":"https://idp.example","aud":["a","b"],"exp":1700000000,"email_verified":true,"x":null}"#,
        #"{"nested":{"deep":[1,{"k":"v"},[]]},"empty":{},"list":[]}"#,
        "1.0", "1e3", "-0", "-0.0", "600.0", "1.5", "-1.5e-3", "1E2", "0.1e1", "1.5E1", "2.5e0", "0e5", "1e-400",
        "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
        "123456789012345678901", "1e400", "1.7976931348623157e309",
        #"{"a":1,"a":2}"#, "[1,]", #"{"a":1,}"#, "[,]", "[1,,2]", "{,}", #"{"a":}"#, "[1 2]", #"{"a":1 "b":2}"#,
        "01", "-", "1.", ".5", "+1", "nul", "true", "false", "null", " 1 ", "1 2", "", " ", "\u{FEFF}1", "\u{0B}1",
        #""\ud800""#, #""\udc00x""#, #""\u00e9\ud83d\ude00""#, #""\u0000""#, #""\/""#, #""\x""#, "\"\t\"",
        "\"a\u{7F}b\"", "\"\u{80}\"", #""\b\f\n\r\t\"\\""#, #"{"a" : 1 , "b":[ ]}"#, "\r\n[\ttrue ,false,null ]\n",
        #""unterminated"#, #"{"k":"v""#, "[", "]", "{}", "[]", #""é""#,
        String(repeating: "[", count: 512) + String(repeating: "]", count: 512),
        String(repeating: "[", count: 513) + String(repeating: "]", count: 513),
    ]

    @Test(arguments: documents)
    func readsAsJSONDecoderDoes(_ document: String) {
        let decoded = try? JSONDecoder().decode(JSONValue.self, from: Data(document.utf8))
        let parsed = JSONValue.parse(Data(document.utf8))
        #expect(parsed == decoded)
        // `==` equates integer(7) and number(7); the kind must match too.
        #expect(parsed.map(Self.kinds) == decoded.map(Self.kinds))
    }

    @Test func refusesInvalidUTF8InAString() {
        #expect(JSONValue.parse([0x22, 0xFF, 0x22]) == nil)
        #expect(JSONValue.parse([0x22, 0xC3, 0xA9, 0x22]) == .string("é"))
    }

    /// The value's kinds in order, telling `integer` from `number`.
    static func kinds(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "bool"
        case .integer: "integer"
        case .number: "number"
        case .string: "string"
        case .array(let elements): "[" + elements.map(kinds).joined(separator: ",") + "]"
        case .object(let members):
            "{" + members.sorted { $0.key < $1.key }.map { $0.key + ":" + kinds($0.value) }.joined(separator: ",") + "}"
        }
    }
}
