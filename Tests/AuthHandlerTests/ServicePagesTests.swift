import Foundation
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerCrypto
@testable import AuthHandlerHTTP
@testable import auth_handler

/// The pages people see (HTTP-API.md §3.5, §3.7): the shell, the stylesheet's place in the CSP, and the error page.
struct ServicePagesTests {
    static func body(_ response: ServerResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    /// The text between the first `start` and the `end` after it.
    static func between(_ start: String, _ end: String, in text: String) -> String? {
        guard let from = text.range(of: start), let to = text.range(of: end, range: from.upperBound..<text.endIndex)
        else { return nil }
        return String(text[from.upperBound..<to.lowerBound])
    }

    @Test func theCSPAdmitsExactlyTheInlineStylesheetByItsHash() throws {
        let response = ResponseRendering.error(
            APIError(.invalidState, "start again"), accept: "text/html",
            audience: PageAudience(productName: "Acme", starter: .app))
        let policy = try #require(response.headers["Content-Security-Policy"])
        let style = try #require(Self.between("<style>", "</style>", in: Self.body(response)))
        let hash = Base64.encode(try SHA256.hash(Array(style.utf8)))
        #expect(policy == "default-src 'none'; style-src 'sha256-\(hash)'; frame-ancestors 'none'")
        #expect(!policy.contains("unsafe"))
        #expect(!Self.body(response).contains("style=\""), "a style attribute would need 'unsafe-hashes'")
        // Every answer of the service carries the same policy; the listener's plain-text refusals admit no style.
        #expect(ResponseRendering.secured(.text("ok")).headers["Content-Security-Policy"] == policy)
        #expect(
            HTTPServerConfiguration.defaultSecurityHeaders["Content-Security-Policy"]
                == "default-src 'none'; frame-ancestors 'none'")
    }

    @Test func anErrorPageSeparatesWordsForPeopleFromTheCodeAndTheMessage() {
        let error = APIError(.unauthorizedRedirectURL, "redirectUrl is not in allowedRedirectURLs")
        let html = Self.body(
            ResponseRendering.error(error, accept: nil, audience: PageAudience(productName: "Acme", starter: .app)))
        #expect(html.contains("<html lang=\"en\">"))
        #expect(html.contains(#"<meta name="viewport" content="width=device-width, initial-scale=1">"#))
        #expect(html.components(separatedBy: "<main>").count == 2 && html.components(separatedBy: "<h1>").count == 2)
        #expect(
            html.contains("<title>Couldn’t sign in to Acme</title>")
                && html.contains("<h1>Couldn’t sign in to Acme</h1>"))
        let explanation = Self.between(#"<p id="error-explanation" class="lead">"#, "</p>", in: html)
        #expect(explanation == APIError.Code.unauthorizedRedirectURL.explanationForPeople)
        #expect(explanation?.contains("allowedRedirectURLs") == false)
        #expect(
            Self.between(#"<p id="next-step" class="next">"#, "</p>", in: html)
                == "Go back to the app and try signing in again.")
        #expect(
            Self.between("<summary>Technical details</summary>\n", "</details>", in: html)
                == #"<p id="error-message">redirectUrl is not in allowedRedirectURLs</p>"# + "\n")
        #expect(
            html.contains(#"<footer><p>Error code <code id="error-code">unauthorized-redirect-url</code></p></footer>"#)
        )
    }

    @Test func aTerminalsErrorPageSendsThePersonBackToTheTerminal() {
        let html = Self.body(
            ResponseRendering.error(
                APIError(.invalidState, "x"), accept: nil,
                audience: PageAudience(productName: nil, starter: .terminal)))
        #expect(html.contains("<h1>Couldn’t sign in</h1>"))
        #expect(html.contains("Return to your terminal"))
        #expect(!html.contains("Go back to the app"))
    }

    @Test func jsonErrorsAreUnchangedByTheAudience() {
        let json = ResponseRendering.error(
            APIError(.invalidState, "start again"), accept: "application/json",
            audience: PageAudience(productName: "Acme", starter: .terminal))
        #expect(Self.body(json) == #"{"error":{"code":"invalid-state","message":"start again"}}"#)
    }

    @Test func everyCodeHasWordsForPeopleThatAreNotItsCode() {
        for code in APIError.Code.allCases {
            #expect(code.explanationForPeople.hasSuffix("."), "\(code)")
            #expect(!code.explanationForPeople.contains(code.rawValue), "\(code)")
        }
    }

    @Test func theOnceDonePageNamesTheProductAndTheProviderAndTheNextStep() {
        let html = OnceDonePage.signedInPage(
            providerName: "Google", audience: PageAudience(productName: "Acme & Co", starter: .terminal))
        #expect(html.contains("<title>Signed in to Acme &amp; Co</title>"))
        #expect(
            html.contains(
                #"<p id="outcome" class="lead">You signed in with Google. The result is in your terminal.</p>"#))
        #expect(html.contains("You can close this window and return to your terminal."))
        #expect(html.contains(#"<div class="mark good" aria-hidden="true">"#))
    }
}
