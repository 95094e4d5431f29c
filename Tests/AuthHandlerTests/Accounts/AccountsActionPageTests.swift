import Testing

@testable import AuthHandlerAccounts
@testable import AuthHandlerCore

/// The action page's own parts (HTTP-API.md §3.10): the origin a POST must come from, and what the pages show.
struct AccountsActionPageTests {
    @Test(
        "publicURL's origin as a browser writes it in Origin: scheme and host lowercased, a default port left out",
        arguments: [
            ("https://Auth.Example.com/__/auth/handler", "https://auth.example.com"),
            ("https://auth.example.com:443/__/auth/handler", "https://auth.example.com"),
            ("https://auth.example.com:8443/__/auth/handler", "https://auth.example.com:8443"),
            ("http://127.0.0.1:8080/__/auth/handler", "http://127.0.0.1:8080"),
            ("http://[::1]:8080/__/auth/handler", "http://[::1]:8080"),
        ])
    func publicOrigin(redirectURI: String, origin: String) {
        #expect(AccountsActionRoutes.publicOrigin(redirectURI) == origin)
    }

    @Test("the form carries the code in its body, posts to the relative action, and escapes what it shows")
    func form() {
        let link = AccountsActionPages.Link(
            info: .init(kind: .resetPassword, email: #"a"<b>@example.com"#), code: "CODE",
            continueURL: #"https://app.example.com/?q="x""#)
        let page = AccountsActionPages.form(
            link, minimumLength: 15, problem: nil, audience: PageAudience(productName: "Acme", starter: .app))
        #expect(page.contains(#"<form method="post" action="action">"#))
        #expect(page.contains(#"<input type="hidden" name="oobCode" value="CODE">"#))
        #expect(page.contains(#"name="newPassword" type="password" autocomplete="new-password" minlength="15""#))
        #expect(page.contains("a&quot;&lt;b&gt;@example.com"))
        #expect(!page.contains("<b>"))
        #expect(page.contains(#"value="https://app.example.com/?q=&quot;x&quot;""#))
    }

    @Test("the done page links continueUrl only when given")
    func done() {
        let info = AccountsEngine.ActionCodeInfo(kind: .verifyEmail, email: "a@example.com")
        let audience = PageAudience(productName: nil, starter: .app)
        let with = AccountsActionPages.done(info, continueURL: "https://app.example.com/", audience: audience)
        #expect(with.contains(#"id="action-continue" href="https://app.example.com/""#))
        #expect(!AccountsActionPages.done(info, continueURL: nil, audience: audience).contains("action-continue"))
    }
}
