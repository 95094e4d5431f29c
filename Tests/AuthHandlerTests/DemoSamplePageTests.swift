import Foundation
import TestSupport
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP
@testable import auth_handler

/// `auth-handler demo`'s sample page (HTTP-API.md §1.5) as the extra routes of an in-process ``RunningService``, and
/// the headers ``ExtraRoutes`` gives every extra route.
@Suite(.timeLimit(.minutes(1)))
struct DemoSamplePageTests {
    static func start(extraRoutes: [String: AuthHandlerService.ExtraRoute]) async throws -> RunningService {
        try await RunningService.start(
            config: AuthHandlerConfig(listen: [ListenAddress(host: "127.0.0.1", port: 0)], store: .memory),
            environment: SecretEnvironment(variables: [:]), log: EventLog(sink: CapturingLogSink()),
            defaultStore: .memory, extraRoutes: extraRoutes)
    }

    @Test func thePageAndItsFilesAreServedWithTheirPolicyAndTheSecurityHeaders() async throws {
        var routes = DemoSamplePage.routes
        routes["/plain"] = { _, _ in
            ServerResponse(
                headers: ["Content-Type": "text/plain", "X-Frame-Options": "ALLOWALL", "Cache-Control": "max-age=60"],
                body: Array("plain\n".utf8))
        }
        let running = try await Self.start(extraRoutes: routes)
        defer { Task { await running.stop() } }
        let client = try HTTPClient()
        let page = try await client.send(OutboundRequest(url: running.baseURL + "/demo/"))
        #expect(page.status == 200)
        #expect(page.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(page.headers["Content-Security-Policy"] == DemoSamplePage.contentSecurityPolicy)
        #expect(page.headers["X-Frame-Options"] == "DENY")
        #expect(page.headers["Referrer-Policy"] == "no-referrer")
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(html.contains(#"<script type="module" src="app.js"></script>"#))
        // No inline script: every <script> element loads a file.
        #expect(html.components(separatedBy: "<script").count == 2)

        let script = try await client.send(OutboundRequest(url: running.baseURL + "/demo/app.js"))
        #expect(script.headers["Content-Type"] == "text/javascript; charset=utf-8")
        #expect(String(decoding: script.body, as: UTF8.self).contains(#"from "/__/auth/client.js""#))
        let style = try await client.send(OutboundRequest(url: running.baseURL + "/demo/app.css"))
        #expect(style.headers["Content-Type"] == "text/css; charset=utf-8")
        #expect(try await client.send(OutboundRequest(method: "POST", url: running.baseURL + "/demo/")).status == 405)

        // A route without a policy of its own gets §3.5's, and §3.5's other headers replace the route's.
        let plain = try await client.send(OutboundRequest(url: running.baseURL + "/plain"))
        #expect(
            plain.headers["Content-Security-Policy"] == ResponseRendering.securityHeaders["Content-Security-Policy"])
        #expect(plain.headers["X-Frame-Options"] == "DENY")
        #expect(plain.headers["Cache-Control"] == "no-store")
    }

    @Test func aServiceWithoutTheDemosRoutesHasNoSamplePage() async throws {
        let running = try await Self.start(extraRoutes: [:])
        defer { Task { await running.stop() } }
        let client = try HTTPClient()
        for path in DemoSamplePage.files.keys {
            #expect(try await client.send(OutboundRequest(url: running.baseURL + path)).status == 404)
        }
    }
}
