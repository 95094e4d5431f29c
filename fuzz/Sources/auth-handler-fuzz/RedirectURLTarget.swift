import AuthHandlerCore
import AuthHandlerHTTP
import AuthHandlerSystem

/// A `redirectUrl` against a fixed `allowedRedirectURLs` (HTTP-API.md §2.7), and as an entry of its own.
enum RedirectURLTarget {
    private static let policy = RedirectURLPolicy(allowed: [
        "https://app.example.com/auth/done", "http://127.0.0.1/callback", "http://[::1]:8080/cb",
        "com.example.app:/oauth2redirect", "https://app.example.com:8443/x?keep=1",
    ])

    static func run(_ input: [UInt8]) {
        let candidate = String(decoding: input, as: UTF8.self)
        if policy.allows(candidate) {
            // What the policy lets through must hold nothing a browser could read differently (its doc comment).
            expect(
                !candidate.utf8.contains { $0 <= 0x20 || $0 >= 0x7f || $0 == UInt8(ascii: "\\") },
                "an allowed URL holds whitespace, a control, non-ASCII or a backslash")
            expect(!candidate.contains("#"), "an allowed URL holds a fragment")
            if let separator = candidate.range(of: "://") {
                let authority = candidate[separator.upperBound...].prefix { $0 != "/" && $0 != "?" }
                expect(
                    !authority.contains("@") && !authority.contains("%"),
                    "an allowed URL holds user info or a percent-escape in its authority")
            }
            _ = RedirectURLPolicy.appending([URLFormField(name: "code", value: "c")], to: candidate)
        }
        _ = RedirectURLPolicy(allowed: [candidate]).allows(candidate)
    }
}
