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
