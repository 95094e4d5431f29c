import Foundation
import TestSupport
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP
@testable import AuthHandlerStore
@testable import auth_handler

/// The device sign-in's pages and confirmation form through the service, in process (HTTP-API.md §3.9): what the
/// confirmation page shows of a request, which pages may answer its form, and a code that was already decided.
struct ServiceDevicePagesTests {
    static let client = "203.0.113.9:5000"

    /// A service over a device sign-in flow on the memory store.
    static func service() throws -> (AuthHandlerService, SignInFlow) {
        let store = MemorySessionStore()
        let flow = try DeviceFlowTests.flow(store: store)
        let service = AuthHandlerService(
            flow: flow, store: store, metrics: Metrics(), log: EventLog(sink: DiscardingLogSink()))
        return (service, flow)
    }

    /// A device request for Google with `pairs` added; its user code.
    static func issue(_ flow: SignInFlow, _ pairs: [(String, String)] = []) async throws -> String {
        let fields = ServiceSignInPickerTests.fields(
            [("providerId", "google.com"), ("resultChallenge", ServiceSignInPickerTests.challenge)] + pairs)
        return try await flow.issueDevice(fields, client: "198.51.100.7").userCode
    }

    /// `GET /__/auth/device?user_code=...`, with the browser's `Cookie` when it has one.
    static func page(_ service: AuthHandlerService, _ userCode: String, cookie: String? = nil) async -> ServerResponse {
        var headers: HTTPHeaders = [:]
        if let cookie { headers.set(name: "Cookie", value: cookie) }
        let query = [URLFormField(name: "user_code", value: userCode)]
        return await service.handle(
            ServerRequest(
                method: "GET", path: "/__/auth/device", rawQuery: FormURLEncoding.encode(query), queryItems: query,
                headers: headers, remoteAddress: client))
    }

    /// The `name=value` of the confirmation cookie `page` set.
    static func cookie(of page: ServerResponse) throws -> String {
        try #require(page.headers["Set-Cookie"]?.split(separator: ";").first.map(String.init))
    }

    /// Answers the form of the confirmation `page` with `decision` from the browser that opened it, with
    /// `Sec-Fetch-Site: site` when given.
    static func decide(_ service: AuthHandlerService, page: ServerResponse, decision: String, site: String?)
        async throws -> ServerResponse
    {
        let body = ServicePagesTests.body(page)
        let fields = [
            URLFormField(
                name: "user_code",
                value: try #require(ServicePagesTests.between(#"name="user_code" value=""#, "\"", in: body))),
            URLFormField(
                name: "confirm",
                value: try #require(ServicePagesTests.between(#"name="confirm" value=""#, "\"", in: body))),
            URLFormField(name: "decision", value: decision),
        ]
        var headers: HTTPHeaders = [
            "Cookie": try cookie(of: page), "Content-Type": "application/x-www-form-urlencoded",
            "Accept": "application/json",
        ]
        if let site { headers.set(name: "Sec-Fetch-Site", value: site) }
        return await service.handle(
            ServerRequest(
                method: "POST", path: "/__/auth/device", headers: headers,
                body: Array(FormURLEncoding.encode(fields).utf8),
                formFields: fields, remoteAddress: client))
    }

    /// Findings 1 and 2 of issue 23: the page says in words what the device asks (a link prominently), lists every
    /// custom parameter escaped, and marks each scope the device added as the device's own.
    @Test func theConfirmationPageShowsEverythingTheDeviceChose() async throws {
        let (service, flow) = try Self.service()
        let expected: [(AuthType, String)] = [
            (.signInViaRedirect, "A device asked to sign in with Google using code "),
            (.linkViaRedirect, "A device asked to link Google to an existing account using code "),
            (.reauthViaRedirect, "A device asked you to confirm your identity with Google using code "),
        ]
        for (authType, summary) in expected {
            let userCode = try await Self.issue(
                flow,
                [
                    ("authType", authType.rawValue), ("idToken", "id.token.sig"),
                    ("customParameters", #"{"login_hint":"alice","hd":"<b>x</b>&"}"#),
                    ("scopes", "Official_Acme_CLI_v2_(safe_to_approve),<i>y</i>"),
                ])
            let page = await Self.page(service, userCode)
            #expect(page.status == 200)
            let body = ServicePagesTests.body(page)
            #expect(
                ServicePagesTests.between(#"<p id="device-summary" class="lead">"#, "</p>", in: body)
                    == summary + userCode + ".")
            // A link or a reauthentication says what it does, in bold, right under the summary.
            let consequence = ServicePagesTests.between(#"<p id="device-auth-type" class="next">"#, "</p>", in: body)
            #expect((consequence != nil) == (authType != .signInViaRedirect), "\(authType)")
            #expect(body.contains("<li><code>hd</code> = <code>&lt;b&gt;x&lt;/b&gt;&amp;</code></li>"))
            #expect(body.contains("<li><code>login_hint</code> = <code>alice</code></li>"))
            #expect(!body.contains("<b>x</b>") && !body.contains("<i>y</i>"))
            #expect(body.contains("<li><code>openid</code></li>"), "the configured scope, unmarked")
            #expect(
                body.contains(
                    "<li><code>Official_Acme_CLI_v2_(safe_to_approve)</code> (requested by the device)</li>"))
            #expect(body.contains("<li><code>&lt;i&gt;y&lt;/i&gt;</code> (requested by the device)</li>"))
        }
    }

    /// Finding 7 of issue 23: the form is taken only from a page of this origin (or a browser that says nothing),
    /// not from a sibling subdomain (`same-site`), another site, or a request the person typed (`none`).
    @Test func aConfirmationFromAnyPageButItsOwnIsRefused() async throws {
        let (service, flow) = try Self.service()
        let page = await Self.page(service, try await Self.issue(flow))
        for site in ["same-site", "cross-site", "none"] {
            let refused = try await Self.decide(service, page: page, decision: "cancel", site: site)
            #expect(refused.status == 400, "\(site)")
            let code = JSONValue.parse(refused.body)?["error"]?["code"]?.stringValue
            #expect(code == "invalid-request", "\(site)")
        }
        // Nothing was decided: the same page's form still works from its own origin.
        let taken = try await Self.decide(service, page: page, decision: "cancel", site: "same-origin")
        #expect(taken.status == 303)
        let older = await Self.page(service, try await Self.issue(flow))
        #expect(try await Self.decide(service, page: older, decision: "cancel", site: nil).status == 303)
    }

    /// Finding 8 of issue 23: once a code was continued or cancelled, its page says so and offers nothing to press.
    @Test(arguments: ["continue", "cancel"])
    func aDecidedCodesPageHasNoButtons(decision: String) async throws {
        let (service, flow) = try Self.service()
        let userCode = try await Self.issue(flow)
        let page = await Self.page(service, userCode)
        #expect(try await Self.decide(service, page: page, decision: decision, site: "same-origin").status == 303)
        for cookie in [try Self.cookie(of: page), nil] {
            let again = await Self.page(service, userCode, cookie: cookie)
            let body = ServicePagesTests.body(again)
            #expect(again.status == 400)
            #expect(body.contains(#"<p id="device-used" class="lead">The code \#(userCode) was already used"#))
            #expect(!body.contains("<button") && !body.contains("<form"))
            #expect(again.headers["Set-Cookie"] == nil)
        }
    }
}
