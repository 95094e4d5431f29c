import Foundation
import TestSupport
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP

/// The route table (docs/ARCHITECTURE.md "Routes") and every route group, driven in process through
/// ``InProcessService``: the requests the end-to-end tests once sent to a process.
struct ServiceRouteTests {
    static let json: HTTPHeaders = ["Accept": "application/json"]

    // MARK: The table

    @Test func aRouteOfTheMethodComesBeforeOneForEveryMethodAndOtherMethodsAreRefusedWithTheGroupsMessage() {
        var table = RouteTable()
        table.add("GET", "/a") { _ in .text("get") }
        table.add(nil, "/b") { _ in .text("any") }
        table.add("POST", "/c", on: [.operations]) { _ in .text("post") }
        table.refuseOtherMethods(at: "/a", saying: "use GET at /a")
        guard case .route(let get) = table.lookup(method: "GET", path: "/a", on: .main) else {
            Issue.record("GET /a has no route")
            return
        }
        #expect(get.method == "GET" && get.metricsLabel == "/a")
        guard case .methodNotAllowed(let refusal) = table.lookup(method: "POST", path: "/a", on: .main) else {
            Issue.record("POST /a is not refused")
            return
        }
        #expect(refusal.message == "use GET at /a")
        guard case .route(let any) = table.lookup(method: "DELETE", path: "/b", on: .main) else {
            Issue.record("/b takes every method")
            return
        }
        #expect(any.method == nil)
        // A route of another listener is not there at all on this one; paths match exactly.
        guard case .notFound = table.lookup(method: "POST", path: "/c", on: .main),
            case .notFound = table.lookup(method: "GET", path: "/a/", on: .main),
            case .route = table.lookup(method: "POST", path: "/c", on: .operations)
        else {
            Issue.record("listeners or exact paths not kept apart")
            return
        }
    }

    @Test func theFirstRouteOfAPathAndMethodStaysSoAnExtraRouteCannotReplaceOne() async throws {
        var table = RouteTable()
        table.add("GET", "/a") { _ in .text("first") }
        table.add(nil, "/a") { _ in .text("any") }
        table.add("GET", "/a") { _ in .text("second") }
        let harness = try InProcessService()
        let context = Route.Context(
            request: ServerRequest(method: "GET", path: "/a"), flow: harness.service.flow, listener: .main,
            service: harness.service)
        guard case .route(let route) = table.lookup(method: "GET", path: "/a", on: .main) else {
            Issue.record("GET /a has no route")
            return
        }
        #expect(await route.answer(context).text == "first")
    }

    // MARK: Sign-in (moved from EndToEndRefusalTests.badStartRequests)

    @Test func badStartsAreRefusedByCodeAndAHeadStartsNothing() async throws {
        let harness = try InProcessService()
        let handler = "/__/auth/handler"
        #expect(
            await harness.send("GET", handler, query: InProcessService.start("nope.example"), headers: Self.json)
                .errorCode == "invalid-provider")
        #expect(
            await harness.send("GET", handler, query: [("redirectUrl", "x")], headers: Self.json).errorCode
                == "invalid-request")
        #expect(
            await harness.send(
                "GET", handler, query: InProcessService.start("google.com", [("authType", "popup")]),
                headers: Self.json
            ).errorCode == "unsupported-auth-type")
        #expect(
            await harness.send(
                "GET", handler, query: InProcessService.start("google.com", [("customParameters", "[1]")]),
                headers: Self.json
            ).errorCode == "invalid-request")
        // A HEAD (link scanners, prefetchers) neither starts a sign-in nor uses one up: no provider call.
        let head = await harness.send("HEAD", handler, query: InProcessService.start("twitter.com"))
        #expect(head.status == 405)
        let put = await harness.send("PUT", handler, query: InProcessService.start("google.com"), headers: Self.json)
        #expect(put.status == 405 && put.errorCode == "method-not-allowed")
        #expect(harness.http.requests.isEmpty)
    }

    /// The start's `429` (HTTP-API.md §2.4): a start that must call the provider first is charged to its client's
    /// allowance, and beyond it is refused with `Retry-After` before any call; another client is not affected.
    @Test func aStartBeyondItsClientsAllowanceIsRefusedWithRetryAfterAndCallsNoProvider() async throws {
        let http = ScriptedHTTP(otherwise: .response(.text(500, "down", contentType: "text/plain")))
        let harness = try InProcessService(http: http, startRateLimit: StartRateLimit(perMinute: 1, burst: 2))
        let start = InProcessService.start("twitter.com")
        for _ in 0..<2 {
            let allowed = await harness.send("GET", "/__/auth/handler", query: start, headers: Self.json)
            #expect(allowed.status == 502 && allowed.errorCode == "provider-error")
        }
        #expect(http.requests.count == 2)
        let refused = await harness.send("GET", "/__/auth/handler", query: start, headers: Self.json)
        #expect(refused.status == 429 && refused.errorCode == "too-many-requests")
        let wait = try #require(refused.headers["Retry-After"].flatMap { Int($0) })
        #expect(wait >= 1 && wait <= 60)
        #expect(http.requests.count == 2, "a refused start calls no provider")
        let other = await harness.send(
            "GET", "/__/auth/handler", query: start, headers: Self.json, from: "198.51.100.7:4000")
        #expect(other.status == 502)
    }

    // MARK: Redemption

    @Test func aCodeNeverIssuedIsRefusedAndOnlyAPostRedeems() async throws {
        let harness = try InProcessService()
        let never = await harness.send(
            "POST", "/__/auth/result", form: [("code", "never-issued"), ("verifier", "v")], headers: Self.json)
        #expect(never.status == 400 && never.errorCode == "invalid-result-code")
        let get = await harness.send("GET", "/__/auth/result", query: [("code", "c")], headers: Self.json)
        #expect(get.status == 405 && get.errorCode == "method-not-allowed")
        #expect(get.text.contains("redeem with POST"))
    }

    // MARK: Picker (moved from EndToEndPickerTests.refusalsAreTheStarts)

    @Test func thePickerRefusesWhatTheStartRefusesAsJSONAndAsAPage() async throws {
        let harness = try InProcessService(productName: "Acme Notes")
        let bad: [[(String, String)]] = [
            [("redirectUrl", "https://evil.example/")], [("authType", "popup")], [("resultChallenge", "short")],
            [("customParameters", #"{"nonce":"x"}"#)],
        ]
        for parameters in bad {
            let names = Set(parameters.map(\.0))
            let base = InProcessService.start("google.com").filter { !names.contains($0.0) } + parameters
            let start = await harness.send("GET", "/__/auth/handler", query: base, headers: Self.json)
            let pickerQuery = [("providers", "google.com")] + base.filter { $0.0 != "providerId" }
            let picker = await harness.send("GET", "/__/auth/signin", query: pickerQuery, headers: Self.json)
            #expect(start.status == 400 && picker.status == 400, "\(parameters)")
            #expect(picker.text == start.text, "\(parameters)")
            let page = await harness.send("GET", "/__/auth/signin", query: pickerQuery)
            #expect(page.status == 400)
            #expect(page.text.contains(#"<code id="error-code">\#(start.errorCode ?? "?")</code>"#))
            #expect(page.text.contains("<h1>Couldn’t sign in to Acme Notes</h1>"))
            #expect(!page.text.contains("data-provider-id"), "a refused picker shows no button")
        }
        let unknown = await harness.send(
            "GET", "/__/auth/signin",
            query: [("providers", "google.com,nope.example"), ("redirectUrl", InProcessService.redirect)],
            headers: Self.json)
        #expect(unknown.status == 400 && unknown.errorCode == "invalid-provider")
        let post = await harness.send("POST", "/__/auth/signin", form: [], headers: Self.json)
        #expect(post.status == 405 && post.errorCode == "method-not-allowed")
    }

    // MARK: Client module (moved from EndToEndBrowserClientTests)

    @Test func theModuleIsTheRepositoryFileThen304ForItsETagAndThePopupAdmitsItsScript() async throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let file = Array(try Data(contentsOf: repository.appendingPathComponent("clients/js/auth-handler.js")))
        let harness = try InProcessService()
        let module = await harness.send("GET", "/__/auth/client.js")
        #expect(module.status == 200 && module.body == file)
        #expect(module.headers["Content-Type"] == "text/javascript; charset=utf-8")
        #expect(module.headers["X-Content-Type-Options"] == "nosniff")
        let tag = try #require(module.headers["ETag"])
        let revalidated = await harness.send("GET", "/__/auth/client.js", headers: ["If-None-Match": tag])
        #expect(revalidated.status == 304 && revalidated.body.isEmpty)
        let popup = await harness.send("GET", "/__/auth/popup", query: [("code", "c"), ("eventId", "e")])
        #expect(popup.status == 200)
        #expect(popup.headers["Content-Security-Policy"]?.contains("script-src 'self'") == true)
        #expect(await harness.send("GET", "/__/auth/popup.js").text.contains("AuthHandler.completePopup()"))
        let post = await harness.send("POST", "/__/auth/client.js", form: [], headers: Self.json)
        #expect(post.status == 405 && post.errorCode == "method-not-allowed")
    }

    // MARK: Device (moved from EndToEndDeviceTests.theDeviceRoutesAreOffByDefault)

    @Test func theDeviceRoutesAreServedOnlyWhenEnabled() async throws {
        let off = try InProcessService()
        let refused = await off.send(
            "POST", "/__/auth/device", form: [("providerId", "google.com")], headers: Self.json)
        #expect(refused.status == 404)
        let on = try InProcessService(device: true)
        let issued = await on.send(
            "POST", "/__/auth/device",
            form: [("providerId", "google.com"), ("resultChallenge", InProcessService.challenge)])
        #expect(issued.status == 200, "\(issued.text)")
        #expect(JSONValue.parse(issued.body)?["user_code"]?.stringValue?.count == 9)
        let put = await on.send("PUT", "/__/auth/device/token", headers: Self.json)
        #expect(put.status == 405 && put.text.contains("use POST for /__/auth/device"))
    }

    // MARK: Operations (moved from EndToEndSignInTests.operations)

    @Test func everyAnswerCarriesTheSecurityHeadersAndTheOperationsEndpointsAnswer() async throws {
        let harness = try InProcessService()
        for path in ["/healthz", "/readyz", "/metrics", "/nowhere", "/__/auth/handler"] {
            let response = await harness.send("GET", path)
            #expect(response.headers["Cache-Control"] == "no-store", "\(path)")
            #expect(response.headers["Referrer-Policy"] == "no-referrer", "\(path)")
            #expect(response.headers["X-Frame-Options"] == "DENY", "\(path)")
            #expect(response.headers["X-Content-Type-Options"] == "nosniff", "\(path)")
            #expect(response.headers["Content-Security-Policy"]?.contains("frame-ancestors 'none'") == true)
        }
        #expect(await harness.send("GET", "/healthz").text == "ok\n")
        #expect(await harness.send("GET", "/readyz").text == "ready\n")
        let metrics = await harness.send("GET", "/metrics").text
        #expect(metrics.contains(#"route="ops""#) && !metrics.contains(#"route="/healthz""#))
        #expect(metrics.contains("auth_handler_request_duration_seconds_bucket"))
        #expect(metrics.contains("auth_handler_pending_sessions 0"))
        #expect(harness.service.answerAtOnce(ServerRequest(method: "GET", path: "/healthz"))?.status == 200)
        harness.service.beginDraining()
        #expect(await harness.send("GET", "/readyz").status == 503)
    }

    @Test func apartTheOperationsEndpointsLeaveTheMainListenerAndTheOperationsListenerServesNothingElse() async throws {
        let harness = try InProcessService(operationsApart: true)
        #expect(await harness.send("GET", "/healthz").status == 404)
        #expect(harness.service.answerAtOnce(ServerRequest(method: "GET", path: "/metrics")) == nil)
        #expect(await harness.send("GET", "/healthz", on: .operations).status == 200)
        let other = await harness.send("GET", "/__/auth/handler", headers: Self.json, on: .operations)
        #expect(other.status == 404 && other.text.contains("operations listener"))
    }
}
