import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP
@testable import AuthHandlerSystem

struct HTTPFormURLEncodingTests {
    @Test func decodesPlusPercentEscapesOrderAndDuplicates() throws {
        let fields = try FormURLEncoding.decode("b=2&a=hello+world&a=%E2%9C%93%20ok&c=%2B%26%3D")
        #expect(
            fields == [
                URLFormField(name: "b", value: "2"), URLFormField(name: "a", value: "hello world"),
                URLFormField(name: "a", value: "✓ ok"), URLFormField(name: "c", value: "+&="),
            ])
        #expect(fields.all(named: "a") == ["hello world", "✓ ok"])
    }

    @Test func skipsEmptyPairsAndAcceptsNamesWithoutValues() throws {
        let fields = try FormURLEncoding.decode("&flag&x=&=y&&")
        #expect(
            fields == [
                URLFormField(name: "flag", value: ""), URLFormField(name: "x", value: ""),
                URLFormField(name: "", value: "y"),
            ])
        #expect(try FormURLEncoding.decode("").isEmpty)
    }

    @Test(arguments: ["a=%", "a=%4", "a=%zz", "ok=1&b%G1=2", "a=%%41"])
    func refusesBadPercentEscapes(_ input: String) {
        #expect(throws: FormURLDecodingError.self) { try FormURLEncoding.decode(input) }
        do {
            _ = try FormURLEncoding.decode(input)
        } catch {
            #expect(error.reason == .invalidPercentEscape)
            #expect(!error.description.contains(input))
        }
    }

    @Test(arguments: ["a=%FF", "a=%C3%28", "%ED%A0%80=x"])
    func refusesInvalidUTF8(_ input: String) {
        do {
            _ = try FormURLEncoding.decode(input)
            Issue.record("expected an error for \(input)")
        } catch {
            #expect(error.reason == .invalidUTF8)
        }
    }

    @Test func decodesBytesOfABody() throws {
        let fields = try FormURLEncoding.decode(bytes: Array("code=abc&state=x%2Fy".utf8))
        #expect(fields.first(named: "state") == "x/y")
    }

    @Test func encodesEverythingButUnreservedCharacters() {
        // RFC 5849 §3.6 example values: spaces are %20 and "+" is %2B.
        #expect(FormURLEncoding.percentEncode("Ladies + Gentlemen") == "Ladies%20%2B%20Gentlemen")
        #expect(FormURLEncoding.percentEncode("An encoded string!") == "An%20encoded%20string%21")
        #expect(FormURLEncoding.percentEncode("Dogs, Cats & Mice") == "Dogs%2C%20Cats%20%26%20Mice")
        #expect(FormURLEncoding.percentEncode("☃") == "%E2%98%83")
        #expect(FormURLEncoding.percentEncode("AZaz09-._~") == "AZaz09-._~")
    }

    @Test func encodingRoundTrips() throws {
        let fields = [
            URLFormField(name: "redirect_uri", value: "http://127.0.0.1:8080/__/auth/handler?x=1&y=2"),
            URLFormField(name: "scope", value: "openid email"), URLFormField(name: "scope", value: "ü+="),
            URLFormField(name: "empty", value: ""),
        ]
        let encoded = FormURLEncoding.encode(fields)
        #expect(
            encoded
                == "redirect_uri=http%3A%2F%2F127.0.0.1%3A8080%2F__%2Fauth%2Fhandler%3Fx%3D1%26y%3D2&scope=openid%20email"
                + "&scope=%C3%BC%2B%3D&empty=")
        #expect(try FormURLEncoding.decode(encoded) == fields)
    }

    /// One name or value on its own, as each half of HTTP Basic client credentials (RFC 6749 §2.3.1).
    @Test func oneComponentDecodesAlone() {
        #expect(FormURLEncoding.decodeComponent("p%3Ass+w%2Frd%26x=y") == "p:ss w/rd&x=y")
        #expect(FormURLEncoding.decodeComponent("plain") == "plain")
        #expect(FormURLEncoding.decodeComponent("%ZZ") == nil)
        #expect(FormURLEncoding.decodeComponent("%FF") == nil)
    }

}
