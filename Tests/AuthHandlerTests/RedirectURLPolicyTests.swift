import Testing

@testable import AuthHandler

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

    @Test func appendingAddsToAnExistingQuery() {
        let fields = [URLFormField(name: "code", value: "a b"), URLFormField(name: "eventId", value: "e1")]
        #expect(
            RedirectURLPolicy.appending(fields, to: "https://app.example.com/signed-in")
                == "https://app.example.com/signed-in?code=a%20b&eventId=e1")
        #expect(
            RedirectURLPolicy.appending(fields, to: "https://app.example.com/signed-in?x=1")
                == "https://app.example.com/signed-in?x=1&code=a%20b&eventId=e1")
    }
}
