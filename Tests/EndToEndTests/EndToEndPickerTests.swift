import AuthHandlerCore
import AuthHandlerHTTP
import Foundation
import TestSupport
import Testing

/// The sign-in picker through the real daemon (HTTP-API.md §3.6): its page, a sign-in through one of its links, and
/// refusals identical to the start's.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct EndToEndPickerTests {
    static let branding = ["branding": #"{"name": "Acme Notes"}"#]

    /// The picker URL for `parameters` (the app's redirect and challenge unless given).
    static func pickerURL(_ e2e: EndToEnd, _ parameters: [(String, String)]) -> String {
        var fields = parameters.map { URLFormField(name: $0.0, value: $0.1) }
        if !parameters.contains(where: { $0.0 == "redirectUrl" }) {
            fields.append(URLFormField(name: "redirectUrl", value: EndToEnd.appRedirect))
        }
        if !parameters.contains(where: { $0.0 == "resultChallenge" }) {
            fields.append(URLFormField(name: "resultChallenge", value: EndToEnd.appChallenge))
        }
        return e2e.daemonURL + "/__/auth/signin?" + FormURLEncoding.encode(fields)
    }

    /// Each link's provider id and absolute URL, resolved against the picker's path as a browser resolves it.
    static func links(_ html: String, base: String) throws -> [(id: String, url: String)] {
        let regex = try NSRegularExpression(pattern: #"<a class="choice" data-provider-id="([^"]*)" href="([^"]*)">"#)
        return regex.matches(in: html, range: NSRange(html.startIndex..., in: html)).compactMap { match in
            guard let id = Range(match.range(at: 1), in: html), let href = Range(match.range(at: 2), in: html),
                let url = URL(string: EndToEnd.unescape(String(html[href])), relativeTo: URL(string: base))
            else { return nil }
            return (EndToEnd.unescape(String(html[id])), url.absoluteString)
        }
    }

    @Test("the picker names the product, offers the chosen providers, and a link signs in")
    func signInThroughThePicker() async throws {
        try await withEndToEnd(settings: Self.branding) { e2e in
            let url = Self.pickerURL(
                e2e,
                [
                    ("providers", "google.com,github.com"), ("eventId", "e-picker"),
                    ("customParameters", #"{"login_hint":"bob"}"#),
                ])
            let page = try await e2e.get(url)
            #expect(page.status == 200)
            #expect(page.headers["Content-Type"]?.hasPrefix("text/html") == true)
            #expect(page.headers["Content-Security-Policy"]?.contains("style-src 'sha256-") == true)
            #expect(page.headers["Cache-Control"] == "no-store")
            #expect(page.text.contains("<title>Sign in to Acme Notes</title>"))
            let links = try Self.links(page.text, base: url)
            #expect(links.map(\.id) == ["google.com", "github.com"])
            #expect(page.text.contains(">Continue with Google</a>") && page.text.contains(">Continue with GitHub</a>"))
            let google = try #require(links.first)
            #expect(google.url.hasPrefix(e2e.daemonURL + "/__/auth/handler?providerId=google.com&"))

            let walk = try await e2e.walk(from: google.url)
            let code = try #require(walk.appQuery.first(named: "code"), "\(walk.appQuery)")
            #expect(walk.appQuery.first(named: "eventId") == "e-picker")
            let result = try await e2e.redeem(code: code)
            #expect(result.status == 200, "\(result.text)")
            #expect(result.json?["providerId"]?.stringValue == "google.com")
            #expect(result.json?["profile"]?["email"]?.stringValue == "bob@example.com")
        }
    }
}
