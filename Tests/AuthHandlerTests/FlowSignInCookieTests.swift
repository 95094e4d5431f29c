import Testing

@testable import AuthHandler

/// Reading a sign-in cookie back from `Cookie` header fields (RFC 6265 §5.4): an ASCII header is read on its bytes,
/// any other with Characters; both must find the same values.
struct FlowSignInCookieTests {
    @Test func findsEveryValueOfTheNameTrimmed() {
        let headers = [
            "a=1; auth-handler-x=first ;auth-handler-xy=no", "\tauth-handler-x=\t second\t; ;=; auth-handler-x",
        ]
        #expect(SignInCookie.values(named: "auth-handler-x", in: headers) == ["first", "second"])
        #expect(SignInCookie.values(named: "auth-handler-y", in: headers) == [])
        #expect(SignInCookie.values(named: "a", in: ["a=", "a==b;a=c=d"]) == ["", "=b", "c=d"])
    }

    @Test func readsANonASCIIHeaderAsBefore() {
        let headers = ["é=1; auth-handler-x=v\u{00A0}; auth-handler-x=w"]
        // U+00A0 is whitespace (Zs) to the Character path, which trims it.
        #expect(SignInCookie.values(named: "auth-handler-x", in: headers) == ["v", "w"])
    }
}
