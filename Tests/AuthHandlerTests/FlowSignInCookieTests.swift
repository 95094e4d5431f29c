import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP

/// Reading a sign-in cookie back from `Cookie` header fields (RFC 6265 §5.4), on the header's bytes whatever it holds.
struct FlowSignInCookieTests {
    @Test func findsEveryValueOfTheNameTrimmed() {
        let headers = [
            "a=1; auth-handler-x=first ;auth-handler-xy=no", "\tauth-handler-x=\t second\t; ;=; auth-handler-x",
        ]
        #expect(SignInCookie.values(named: "auth-handler-x", in: headers) == ["first", "second"])
        #expect(SignInCookie.values(named: "auth-handler-y", in: headers) == [])
        #expect(SignInCookie.values(named: "a", in: ["a=", "a==b;a=c=d"]) == ["", "=b", "c=d"])
    }

    @Test func readsANonASCIIHeaderOnItsBytes() {
        let headers = ["é=1; auth-handler-x=v\u{00A0}; auth-handler-x=w; ünï=ç"]
        // Only space and tab are trimmed (RFC 6265 §5.2's WSP); U+00A0 is part of the value.
        #expect(SignInCookie.values(named: "auth-handler-x", in: headers) == ["v\u{00A0}", "w"])
        #expect(SignInCookie.values(named: "ünï", in: headers) == ["ç"])
        #expect(SignInCookie.all(in: headers).map(\.value) == ["v\u{00A0}"])
    }

    /// HTTP-API.md §3.1: the listener's header limit holds the most pending sign-in cookies a browser keeps, each as
    /// large as it may be, twice over (starts in flight in several tabs at once, before eviction sees them), beside
    /// 16 KiB of the browser's other fields; so no start can make the origin answer that browser 431.
    @Test func theHeaderLimitHoldsTheMostPendingSignInCookiesTwiceOver() {
        let cookieBytes = SignInFlow.maximumPendingPerBrowser * (SignInCookie.maximumLength + "; ".utf8.count)
        #expect(HTTPServerConfiguration().maxHeaderBytes >= 2 * cookieBytes + 16 * 1024)
    }
}
