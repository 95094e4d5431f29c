import AuthHandlerCore
import AuthHandlerHTTP
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
        #expect(String(decoding: value.serialized, as: UTF8.self) == text)
        let built = JSONValue.array([.number(1), .number(1.5), .integer(-2)])
        #expect(String(decoding: built.serialized, as: UTF8.self) == "[1,1.5,-2]")
    }

    /// The one serializer writes what `JSONEncoder` with `.sortedKeys` and `.withoutEscapingSlashes` wrote for the
    /// same value (RFC 8259 §7): `/` and non-ASCII as they are, short escapes for the control characters that have
    /// them, `\u00XX` for the others, names in the order of their Unicode scalars.
    @Test func theWriterWritesWhatJSONEncoderWrote() throws {
        let value = JSONValue.object([
            "a_b": .string("\u{8}\u{c}\n\r\t\u{7f}\u{1}\u{1f}/é\"\\"), "aB": .number(786_312_345.678_9),
            "ab": .number(786_312_000), "A": .number(1e-7), "Z": .number(1e300), "_": .integer(-2), "a1": .null,
            "a10": .array([]), "a2": .object([:]), "z": .bool(false),
        ])
        #expect(
            String(decoding: value.serialized(sortingKeys: true), as: UTF8.self)
                == #"{"A":1e-07,"Z":1e+300,"_":-2,"a1":null,"a10":[],"a2":{},"aB":786312345.6789,"#
                + #""a_b":"\b\f\n\r\t\#u{7f}\u0001\u001f/é\"\\","ab":786312000,"z":false}"#)
    }

    @Test func parsingResolvesEscapesAndSurrogatePairs() throws {
        let value = try #require(JSONValue.parse(Data(#"{"a\u0062":"\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"}"#.utf8)))
        #expect(value["ab"]?.stringValue == "\"\\/\u{8}\u{c}\n\r\té😀")
    }

    @Test(arguments: [
        #"{"a":1,"a":2}"#, #"{"a":1,"\u0061":2}"#, #""\ud83d""#, #""\ude00""#, #""\ud83dx""#, "[1,]", "01", "1e999",
        "\"a\u{1}b\"", "[1] [2]", "",
    ])
    func parsingRefuses(_ text: String) {
        #expect(JSONValue.parse(Data(text.utf8)) == nil, "\(text)")
    }

    @Test func parsingRefusesInvalidUTF8() {
        #expect(JSONValue.parse([UInt8(ascii: "\""), 0xFF, UInt8(ascii: "\"")]) == nil)
    }

    @Test func parsingNestsAtMostSixtyFourLevels() {
        let nested = { (depth: Int) in String(repeating: "[", count: depth) + String(repeating: "]", count: depth) }
        #expect(JSONValue.parse(Data(nested(JSONSyntax.defaultMaximumDepth).utf8)) != nil)
        #expect(JSONValue.parse(Data(nested(JSONSyntax.defaultMaximumDepth + 1).utf8)) == nil)
        // Refused at the 65th level, without reading the 8,000 numbers inside (this took seconds through Codable).
        let wide =
            String(repeating: "[", count: 256) + Array(repeating: "1", count: 8000).joined(separator: ",")
            + String(repeating: "]", count: 256)
        #expect(JSONValue.parse(Data(wide.utf8)) == nil)
        let deepest =
            String(repeating: "[", count: 63) + Array(repeating: "1", count: 8000).joined(separator: ",")
            + String(repeating: "]", count: 63)
        #expect(JSONValue.parse(Data(deepest.utf8)) != nil)
    }
}
