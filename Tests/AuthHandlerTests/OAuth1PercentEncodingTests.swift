import Testing

@testable import AuthHandler

struct OAuth1PercentEncodingTests {
    @Test func unreservedCharactersStayAsTheyAre() {
        let unreserved = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
        #expect(OAuth1PercentEncoding.encode(unreserved) == unreserved)
    }

    @Test func reservedCharactersAreEncodedWithUppercaseHex() {
        #expect(
            OAuth1PercentEncoding.encode("!*'();:@&=+$,/?#[]")
                == "%21%2A%27%28%29%3B%3A%40%26%3D%2B%24%2C%2F%3F%23%5B%5D")
        #expect(OAuth1PercentEncoding.encode("%") == "%25")
        #expect(OAuth1PercentEncoding.encode("\"<>\\^`{|}") == "%22%3C%3E%5C%5E%60%7B%7C%7D")
    }

    @Test func spaceIsPercentTwentyNeverPlus() {
        #expect(OAuth1PercentEncoding.encode("Hello Ladies + Gentlemen") == "Hello%20Ladies%20%2B%20Gentlemen")
    }

    @Test func nonASCIIIsEncodedAsUTF8Bytes() {
        #expect(OAuth1PercentEncoding.encode("é") == "%C3%A9")
        #expect(OAuth1PercentEncoding.encode("☃") == "%E2%98%83")
        #expect(OAuth1PercentEncoding.encode("😀") == "%F0%9F%98%80")
        #expect(OAuth1PercentEncoding.encode("\u{0}\u{7F}") == "%00%7F")
    }

    @Test func decodingReversesEncoding() throws {
        let original = "a b+c&d=e/é☃😀%"
        #expect(try OAuth1PercentEncoding.decode(OAuth1PercentEncoding.encode(original)) == original)
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
        let fields = try #require(OAuth1PercentEncoding.formFields("c2&a3=2+q&b5=%3D%253D&&c%40=".utf8))
        #expect(
            fields == [
                URLFormField(name: "c2", value: ""), URLFormField(name: "a3", value: "2 q"),
                URLFormField(name: "b5", value: "=%3D"), URLFormField(name: "c@", value: ""),
            ])
        #expect(OAuth1PercentEncoding.formFields("a=%ZZ".utf8) == nil)
    }
}
