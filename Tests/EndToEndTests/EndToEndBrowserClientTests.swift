import AuthHandlerHTTP
import Foundation
import TestSupport
import Testing

/// The browser module and the popup page as the built daemon serves them (HTTP-API.md §3.8).
@Suite(.timeLimit(.minutes(2)))
struct EndToEndBrowserClientTests {
    @Test("GET /__/auth/client.js answers clients/js/auth-handler.js byte for byte, then 304 for its ETag")
    func moduleIsTheRepositoryFile() async throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let file = Array(try Data(contentsOf: repository.appendingPathComponent("clients/js/auth-handler.js")))
        try await withEndToEnd { e2e in
            let module = try await e2e.get(e2e.daemonURL + "/__/auth/client.js")
            #expect(module.status == 200)
            #expect(module.body == file)
            #expect(module.headers["Content-Type"] == "text/javascript; charset=utf-8")
            #expect(module.headers["X-Content-Type-Options"] == "nosniff")
            #expect(module.headers["Cross-Origin-Opener-Policy"] == nil)
            let tag = try #require(module.headers["ETag"])
            let revalidated = try await e2e.send(
                OutboundRequest(
                    method: "GET", url: e2e.daemonURL + "/__/auth/client.js", headers: ["If-None-Match": tag]))
            #expect(revalidated.status == 304)
            #expect(revalidated.body.isEmpty)

            let popup = try await e2e.get(e2e.daemonURL + "/__/auth/popup?code=c&eventId=e")
            #expect(popup.status == 200)
            #expect(popup.headers["Content-Security-Policy"]?.contains("script-src 'self'") == true)
            #expect(popup.headers["Cross-Origin-Opener-Policy"] == nil)
            let script = try await e2e.get(e2e.daemonURL + "/__/auth/popup.js")
            #expect(script.status == 200)
            #expect(script.text.contains("AuthHandler.completePopup()"))

            let post = try await e2e.postForm(e2e.daemonURL + "/__/auth/client.js", [])
            #expect(post.status == 405)
            #expect(post.errorCode == "method-not-allowed")
        }
    }
}
