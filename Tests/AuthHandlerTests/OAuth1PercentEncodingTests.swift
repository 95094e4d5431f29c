import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP
@testable import AuthHandlerProtocols
@testable import AuthHandlerSystem

struct OAuth1PercentEncodingTests {
    @Test func unreservedCharactersStayAsTheyAre() {
        let unreserved = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
        #expect(RFC3986.percentEncoded(unreserved) == unreserved)
    }

    @Test func reservedCharactersAreEncodedWithUppercaseHex() {
        #expect(
            RFC3986.percentEncoded("!*'();:@&=+$,/?#[]")
                == "%21%2A%27%28%29%3B%3A%40%26%3D%2B%24%2C%2F%3F%23%5B%5D")
        #expect(RFC3986.percentEncoded("%") == "%25")
        #expect(RFC3986.percentEncoded("\"<>\\^`{|}") == "%22%3C%3E%5C%5E%60%7B%7C%7D")
    }

    @Test func spaceIsPercentTwentyNeverPlus() {
        #expect(RFC3986.percentEncoded("Hello Ladies + Gentlemen") == "Hello%20Ladies%20%2B%20Gentlemen")
    }

    @Test func nonASCIIIsEncodedAsUTF8Bytes() {
        #expect(RFC3986.percentEncoded("é") == "%C3%A9")
        #expect(RFC3986.percentEncoded("☃") == "%E2%98%83")
        #expect(RFC3986.percentEncoded("😀") == "%F0%9F%98%80")
        #expect(RFC3986.percentEncoded("\u{0}\u{7F}") == "%00%7F")
    }

    /// Every byte value at every position of a 17-byte text (two 8-byte words and a tail), against the
    /// byte-by-byte definition of §3.6: the word-at-a-time path must agree with it.
    @Test func everyByteAtEveryPositionMatchesTheDefinition() {
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        func reference(_ bytes: [UInt8]) -> String {
            bytes.map { unreserved.contains($0) ? String(UnicodeScalar($0)) : "%" + hex($0) }.joined()
        }
        func hex(_ byte: UInt8) -> String {
            let digits = Array("0123456789ABCDEF")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
        }
        for position in 0..<17 {
            for value in UInt8.min...UInt8.max {
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 17)
                bytes[position] = value
                let encoded = ByteWriter.string(capacity: 51) { writer in
                    bytes.withUnsafeBufferPointer { writer.write(percentEncoding: $0) }
                }
                #expect(encoded == reference(bytes), "byte \(value) at \(position)")
                let reencoded = ByteWriter.string(capacity: 51) { writer in
                    bytes.withUnsafeBufferPointer { writer.write(reencoding: $0) }
                }
                let expected = value == UInt8(ascii: "%") ? reference(bytes) : String(decoding: bytes, as: UTF8.self)
                #expect(reencoded.utf8.elementsEqual(expected.utf8), "byte \(value) at \(position)")
            }
        }
    }

    @Test func decodingReversesEncoding() throws {
        let original = "a b+c&d=e/é☃😀%"
        #expect(try OAuth1PercentEncoding.decode(RFC3986.percentEncoded(original)) == original)
        #expect(try OAuth1PercentEncoding.decode("%c3%a9") == "é")
        #expect(try OAuth1PercentEncoding.decode("a+b") == "a+b")
    }

    @Test(arguments: ["%", "%2", "%G0", "%2G", "abc%", "%FF", "%C3"])
    func decodingRefusesBrokenEscapesAndInvalidUTF8(_ text: String) {
        #expect(throws: OAuth1Error.invalidPercentEncoding(parameter: "value")) {
            try OAuth1PercentEncoding.decode(text)
        }
    }

    @Test func formDecodingTreatsPlusAsSpaceAndKeepsEmptyValues() throws {
        let fields = try FormURLEncoding.decode("c2&a3=2+q&b5=%3D%253D&&c%40=")
        #expect(
            fields == [
                URLFormField(name: "c2", value: ""), URLFormField(name: "a3", value: "2 q"),
                URLFormField(name: "b5", value: "=%3D"), URLFormField(name: "c@", value: ""),
            ])
        #expect(throws: FormURLDecodingError.self) { try FormURLEncoding.decode("a=%ZZ") }
    }
}
