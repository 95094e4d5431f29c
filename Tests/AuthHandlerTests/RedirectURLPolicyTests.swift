import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP

struct RedirectURLPolicyTests {
    let policy = RedirectURLPolicy(allowed: [
        "https://app.example.com/signed-in", "com.example.app:/auth", "http://127.0.0.1/done", "http://[::1]/done",
        "https://ports.example.com:8443/cb",
    ])

    @Test(
        "allowed redirect URLs",
        arguments: [
            "https://app.example.com/signed-in",
            "https://app.example.com/signed-in?from=web",
            "https://APP.example.com/signed-in",
            "https://app.example.com:443/signed-in",
            "com.example.app:/auth",
            "http://127.0.0.1/done",
            "http://127.0.0.1:49152/done",
            "http://[::1]:8080/done",
            "https://ports.example.com:8443/cb",
        ])
    func allowed(_ url: String) {
        #expect(policy.allows(url))
    }

    @Test(
        "refused redirect URLs",
        arguments: [
            "//evil.example",
            "/\\evil.example",
            "https://app.example.com.evil.example/signed-in",
            "https://app.example.com/signed-in/../x",
            "https://app.example.com%09.evil.example/",
            "javascript:alert(1)",
            "https://app.example.com/signed-in/",
            "https://app.example.com/signed-in/extra",
            "https://app.example.com/signed",
            "http://app.example.com/signed-in",
            "https://app.example.com:444/signed-in",
            "https://user@app.example.com/signed-in",
            "https://app.example.com/signed-in#frag",
            "https://app.example.com/%2e%2e/signed-in",
            "https://app.example.com\\@evil.example/signed-in",
            "https://app.example.com/signed-in\t",
            " https://app.example.com/signed-in",
            "https:app.example.com/signed-in",
            "com.example.app:/auth/extra",
            "com.example.evil:/auth",
            "http://127.0.0.2:5000/done",
            "http://localhost:5000/done",
            "https://ports.example.com/cb",
            "https://app.example.com/sígned-in",
            "",
        ])
    func refused(_ url: String) {
        #expect(!policy.allows(url))
    }

    /// Found by the redirect-url fuzz target (now a seed in fuzz/corpus/redirect-url/): user info whose percent-escapes do not
    /// decode to UTF-8 has no decoded `user`, and was let through.
    @Test(
        "user info is refused even when it does not percent-decode",
        arguments: [
            "https://u2%F2dsIntpass@app.example.com/signed-in",
            "https://user:%FF@app.example.com/signed-in",
            "https://%C0%AF@app.example.com/signed-in",
            "https://@app.example.com/signed-in",
        ])
    func refusesUndecodableUserInfo(_ url: String) {
        #expect(!policy.allows(url))
    }

    @Test func appendingAddsToAnExistingQuery() {
        let fields = [URLFormField(name: "code", value: "a b"), URLFormField(name: "eventId", value: "e1")]
        #expect(
            RedirectURLPolicy.appending(fields, to: "https://app.example.com/signed-in")
                == "https://app.example.com/signed-in?code=a%20b&eventId=e1")
        #expect(
            RedirectURLPolicy.appending(fields, to: "https://app.example.com/signed-in?x=1")
                == "https://app.example.com/signed-in?x=1&code=a%20b&eventId=e1")
    }

    /// HTTP-API.md §3.1: a redirectUrl whose query already holds a name the handler adds is refused,
    /// in every spelling a lenient parser would fold into that name.
    @Test(
        "redirect URLs whose query holds the handler's own names",
        arguments: [
            "https://app.example.com/signed-in?code=planted",
            "https://app.example.com/signed-in?from=web&eventId=e0",
            "https://app.example.com/signed-in?error=x",
            "https://app.example.com/signed-in?error_description=x",
            "https://app.example.com/signed-in?code",
            "https://app.example.com/signed-in?CODE=1",
            "https://app.example.com/signed-in?EventID=1",
            "https://app.example.com/signed-in?c%6Fde=1",
            "https://app.example.com/signed-in?%63%6F%64%65=1",
            "https://app.example.com/signed-in?c%256Fde=1",
            "https://app.example.com/signed-in?code%5B%5D=1",
            "https://app.example.com/signed-in?code[]=1",
            "https://app.example.com/signed-in?error.description=1",
            "https://app.example.com/signed-in?error+description=1",
            "https://app.example.com/signed-in?%20code=1",
            "https://app.example.com/signed-in?x=1;code=2",
            "https://app.example.com/signed-in?x%zz=1",
            "com.example.app:/auth?code=1",
            "http://127.0.0.1:5000/done?eventId=1",
        ])
    func handlerNamesInTheQueryAreRefused(_ url: String) {
        #expect(!policy.allows(url))
    }

    @Test(arguments: [
        "https://app.example.com/signed-in?codes=1",
        "https://app.example.com/signed-in?x=code",
        "https://app.example.com/signed-in?errors=1&event=2",
        "https://app.example.com/signed-in?",
    ])
    func similarNamesAndValuesPass(_ url: String) {
        #expect(policy.allows(url))
    }

    @Test(arguments: [
        "https://ports.example.com:99999/cb", "https://ports.example.com:0/cb", "http://127.0.0.1:65536/done",
        "http://127.0.0.1:0/done",
    ])
    func portOutsideTheValidRangeIsRefused(_ url: String) {
        #expect(!policy.allows(url))
        #expect(RedirectURLPolicy.parse(url) == nil)
    }

    @Test func highestPortIsAccepted() {
        #expect(policy.allows("http://127.0.0.1:65535/done"))
    }
}
