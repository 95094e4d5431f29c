import AuthHandlerCore
import AuthHandlerHTTP
import AuthHandlerProtocols
import AuthHandlerStore
import Foundation
import TestSupport
import Testing

/// Device sign-in (HTTP-API.md §3.9) through the real daemon and the fake IdP: the code pair, the confirmation page
/// in a browser made of the HTTP client, the result delivered once to the poll, and the errors of RFC 8628 §3.5.
@Suite(.timeLimit(.minutes(3))) struct EndToEndDeviceTests {
    static let verifier = "device-verifier-0123456789-abcdefghijklmnopqrstuvwxyz"

    static func settings(lifetime: Int = 600, interval: Int = 1, extra: [String: String] = [:]) -> [String: String] {
        [
            "deviceAuthorization":
                #"{"enabled": true, "codeLifetimeSeconds": \#(lifetime), "intervalSeconds": \#(interval)}"#
        ].merging(extra) { _, new in new }
    }

    /// Waits out the 1-second poll interval of `settings()` before polling again. The daemon spaces polls on its own
    /// monotonic clock, which a test of the real binary cannot move; the pacing itself, the code's expiry and every
    /// longer wait are timed in process on a test clock (`DeviceFlowTests`).
    static func waitTheInterval() async throws {
        try await Task.sleep(for: .milliseconds(1100))
    }

    /// POST /__/auth/device for `provider`, approving at the fake IdP as `user`.
    static func issue(_ e2e: EndToEnd, _ provider: String, user: String = "alice") async throws -> [String: JSONValue] {
        let hint = provider == "twitter.com" ? "screen_name" : "login_hint"
        let response = try await e2e.postForm(
            e2e.daemonURL + "/__/auth/device",
            [
                URLFormField(name: "providerId", value: provider),
                URLFormField(name: "resultChallenge", value: try PKCE.challenge(forVerifier: verifier)),
                URLFormField(name: "customParameters", value: "{\"\(hint)\":\"\(user)\"}"),
            ], freshBrowser: true)
        #expect(response.status == 200, "issue answered \(response.status): \(response.text)")
        return try #require(response.json?.objectValue)
    }

    static func poll(_ e2e: EndToEnd, _ deviceCode: String, verifier: String = verifier) async throws
        -> OutboundResponse
    {
        try await e2e.postForm(
            e2e.daemonURL + "/__/auth/device/token",
            [
                URLFormField(name: "grant_type", value: "urn:ietf:params:oauth:grant-type:device_code"),
                URLFormField(name: "device_code", value: deviceCode), URLFormField(name: "verifier", value: verifier),
            ], freshBrowser: true)
    }

    /// Opens the confirmation page for `completeURI` and answers it with `decision`; returns the decision's answer.
    static func decide(_ e2e: EndToEnd, completeURI: String, decision: String) async throws -> OutboundResponse {
        let page = try await e2e.get(completeURI)
        #expect(page.status == 200, "confirmation page answered \(page.status): \(page.text)")
        #expect(page.text.contains("Continue only if you started this sign-in yourself"))
        let token = try #require(EndToEnd.firstMatch(#"name="confirm" value="([^"]*)""#, in: page.text))
        let userCode = try #require(EndToEnd.firstMatch(#"name="user_code" value="([^"]*)""#, in: page.text))
        return try await e2e.postForm(
            e2e.daemonURL + "/__/auth/device",
            [
                URLFormField(name: "user_code", value: userCode), URLFormField(name: "confirm", value: token),
                URLFormField(name: "decision", value: decision),
            ], accept: nil)
    }

    /// Confirms and walks the browser through the provider to the done page; returns the done page's URL.
    static func confirm(_ e2e: EndToEnd, completeURI: String) async throws -> String? {
        let answer = try await decide(e2e, completeURI: completeURI, decision: "continue")
        #expect(answer.status == 303, "continue answered \(answer.status): \(answer.text)")
        let location = try #require(answer.headers["Location"])
        let walk = try await e2e.walk(from: location)
        return walk.callbackURL.flatMap { _ in walk.handlerResponses.last?.status == 200 ? "done" : nil }
    }

    @Test(arguments: ["google.com", "twitter.com"])
    func signsInOnceAndRefusesAWrongVerifier(provider: String) async throws {
        try await withEndToEnd(settings: Self.settings()) { e2e in
            let issued = try await Self.issue(e2e, provider)
            let deviceCode = try #require(issued["device_code"]?.stringValue)
            let userCode = try #require(issued["user_code"]?.stringValue)
            #expect(userCode.count == 9 && userCode.dropFirst(4).first == "-")
            #expect(issued["verification_uri"]?.stringValue == e2e.daemonURL + "/__/auth/device")
            #expect(issued["interval"] == .integer(1))
            let pending = try await Self.poll(e2e, deviceCode)
            #expect(pending.status == 400 && pending.json?["error"]?.stringValue == "authorization_pending")
            // Lowercase, without the dash: entry ignores both.
            let typed = userCode.lowercased().replacingOccurrences(of: "-", with: "")
            let done = try await Self.confirm(e2e, completeURI: e2e.daemonURL + "/__/auth/device?user_code=" + typed)
            #expect(done == "done")
            try await Self.waitTheInterval()
            let wrong = try await Self.poll(e2e, deviceCode, verifier: "not-the-verifier-0123456789-abcdefghijklmnop")
            #expect(wrong.status == 400 && wrong.json?["error"]?.stringValue == "invalid_grant", "\(wrong.text)")
            try await Self.waitTheInterval()
            let delivered = try await Self.poll(e2e, deviceCode)
            #expect(delivered.status == 200, "\(delivered.text)")
            #expect(delivered.json?["providerId"]?.stringValue == provider)
            #expect(delivered.json?["profile"] != nil && delivered.json?["credential"] != nil)
            try await Self.waitTheInterval()
            let again = try await Self.poll(e2e, deviceCode)
            #expect(again.status == 400 && again.json?["error"]?.stringValue == "invalid_grant")
            // The user code was used: its page says so and has no form to confirm it a second time.
            let second = try await e2e.get(e2e.daemonURL + "/__/auth/device?user_code=" + userCode)
            #expect(second.status == 400 && second.text.contains("was already used"))
            #expect(EndToEnd.firstMatch(#"name="confirm" value="([^"]*)""#, in: second.text) == nil)
        }
    }

    @Test func decliningAndCancellingGiveAccessDenied() async throws {
        try await withEndToEnd(settings: Self.settings()) { e2e in
            let declined = try await Self.issue(e2e, "google.com")
            let answer = try await Self.decide(
                e2e, completeURI: try #require(declined["verification_uri_complete"]?.stringValue),
                decision: "cancel")
            #expect(answer.status == 303)
            let refused = try await Self.poll(e2e, try #require(declined["device_code"]?.stringValue))
            #expect(refused.json?["error"]?.stringValue == "access_denied", "\(refused.text)")

            // Denied at the provider (the fake IdP's user "deny").
            let denied = try await Self.issue(e2e, "google.com", user: "deny")
            let done = try await Self.confirm(
                e2e, completeURI: try #require(denied["verification_uri_complete"]?.stringValue))
            #expect(done == "done")
            let cancelled = try await Self.poll(e2e, try #require(denied["device_code"]?.stringValue))
            #expect(cancelled.json?["error"]?.stringValue == "access_denied", "\(cancelled.text)")
            // Operators see device sign-ins asked for and declined, by provider, with no code in the line.
            await e2e.daemon.stop()
            let lines = e2e.daemon.standardError.split(separator: "\n")
            #expect(lines.filter { $0.contains("device.issue") && $0.contains("google.com") }.count == 2)
            #expect(lines.contains { $0.contains("device.decline") && $0.contains("user-cancelled") })
            let deviceCode = try #require(declined["device_code"]?.stringValue)
            #expect(!e2e.daemon.standardError.contains(deviceCode))
        }
    }

    /// The wiring of RFC 8628 §3.5 through the real binary: a poll right after another is told `slow_down` with the
    /// interval 5 s longer. The interval is the longest accepted (60 s), so that a loaded machine taking a second or
    /// more between the two polls still polls too soon (with 1 s, a CI run once saw `authorization_pending`). The
    /// rest of the pacing and the code's expiry are timed in process, on a test clock (`DeviceFlowTests`).
    @Test func pollingTooSoonSlowsDown() async throws {
        let interval = DeviceAuthorizationConfig.maximumIntervalSeconds
        try await withEndToEnd(settings: Self.settings(interval: interval)) { e2e in
            let deviceCode = try #require(try await Self.issue(e2e, "google.com")["device_code"]?.stringValue)
            // The first poll, right after issuing, is never too soon.
            let first = try await Self.poll(e2e, deviceCode)
            #expect(first.json?["error"]?.stringValue == "authorization_pending")
            let hurried = try await Self.poll(e2e, deviceCode)
            #expect(hurried.json?["error"]?.stringValue == "slow_down")
            #expect(hurried.json?["interval"] == .integer(Int64(interval + DevicePacing.slowDownIncrement)))
        }
    }

    @Test func aWrongCodeFloodIsLimitedPerAddress() async throws {
        try await withEndToEnd(settings: Self.settings(extra: ["trustedProxies": #"["127.0.0.1/32"]"#])) { e2e in
            let issued = try await Self.issue(e2e, "google.com")
            let userCode = try #require(issued["user_code"]?.stringValue)
            func enter(_ code: String, from address: String) async throws -> Int {
                try await e2e.send(
                    OutboundRequest(
                        method: "GET", url: e2e.daemonURL + "/__/auth/device?user_code=" + code,
                        headers: ["X-Forwarded-For": address])
                ).status
            }
            var statuses: [Int] = []
            for _ in 0..<12 { statuses.append(try await enter("BCDF-GHJK", from: "203.0.113.5")) }
            #expect(statuses.prefix(10).allSatisfy { $0 == 400 })
            #expect(statuses.suffix(2).allSatisfy { $0 == 429 })
            // The limited address cannot try the right code either; another address can.
            #expect(try await enter(userCode, from: "203.0.113.5") == 429)
            #expect(try await enter(userCode, from: "203.0.113.6") == 200)
        }
    }

    @Test func issuingIsChargedToTheStartLimitOfItsOwnAddress() async throws {
        let settings = Self.settings(extra: [
            "trustedProxies": #"["127.0.0.1/32"]"#, "startRateLimit": #"{"perMinute": 1, "burst": 2}"#,
        ])
        try await withEndToEnd(settings: settings) { e2e in
            func issue(from address: String) async throws -> OutboundResponse {
                try await e2e.send(
                    OutboundRequest(
                        method: "POST", url: e2e.daemonURL + "/__/auth/device",
                        headers: [
                            "Content-Type": "application/x-www-form-urlencoded", "X-Forwarded-For": address,
                        ],
                        body: Array(
                            FormURLEncoding.encode([
                                URLFormField(name: "providerId", value: "google.com"),
                                URLFormField(
                                    name: "resultChallenge", value: try PKCE.challenge(forVerifier: Self.verifier)),
                            ]).utf8)), freshBrowser: true)
            }
            #expect(try await issue(from: "203.0.113.5").status == 200)
            #expect(try await issue(from: "203.0.113.5").status == 200)
            let limited = try await issue(from: "203.0.113.5")
            #expect(limited.status == 429 && limited.headers["Retry-After"] != nil)
            #expect(try await issue(from: "203.0.113.6").status == 200)
        }
    }

    @Test func theSQLiteFileHoldsNoUsableCode() async throws {
        try await withEndToEnd(settings: Self.settings()) { e2e in
            let issued = try await Self.issue(e2e, "google.com")
            let deviceCode = try #require(issued["device_code"]?.stringValue)
            let userCode = try #require(issued["user_code"]?.stringValue)
            let done = try await Self.confirm(
                e2e, completeURI: try #require(issued["verification_uri_complete"]?.stringValue))
            #expect(done == "done")
            var bytes = Data()
            for name in ["state.sqlite", "state.sqlite-wal"] {
                bytes += (try? Data(contentsOf: e2e.directory.appendingPathComponent(name))) ?? Data()
            }
            #expect(bytes.count > 0)
            let text = String(decoding: bytes, as: UTF8.self)
            for secret in [deviceCode, userCode, userCode.replacingOccurrences(of: "-", with: ""), "alice@example.com"]
            {
                #expect(!text.contains(secret), "the store holds \(secret.prefix(4))…")
            }
            try await Self.waitTheInterval()
            #expect(try await Self.poll(e2e, deviceCode).status == 200)
        }
    }

    @Test func aCrossSiteConfirmationIsRefused() async throws {
        try await withEndToEnd(settings: Self.settings()) { e2e in
            let issued = try await Self.issue(e2e, "google.com")
            let complete = try #require(issued["verification_uri_complete"]?.stringValue)
            let page = try await e2e.get(complete)
            let token = try #require(EndToEnd.firstMatch(#"name="confirm" value="([^"]*)""#, in: page.text))
            let fields = [
                URLFormField(name: "user_code", value: try #require(issued["user_code"]?.stringValue)),
                URLFormField(name: "confirm", value: token), URLFormField(name: "decision", value: "continue"),
            ]
            // Another browser (no confirmation cookie) with the token an attacker read from its own page.
            let forged = try await e2e.postForm(e2e.daemonURL + "/__/auth/device", fields, freshBrowser: true)
            #expect(forged.status == 400)
            // This browser, with its cookie and token, but sent by another site's page (Fetch Metadata).
            let crossSite = try await e2e.send(
                OutboundRequest(
                    method: "POST", url: e2e.daemonURL + "/__/auth/device",
                    headers: [
                        "Content-Type": "application/x-www-form-urlencoded", "Sec-Fetch-Site": "cross-site",
                    ],
                    body: Array(FormURLEncoding.encode(fields).utf8)))
            #expect(crossSite.status == 400)
            let poll = try await Self.poll(e2e, try #require(issued["device_code"]?.stringValue))
            #expect(poll.json?["error"]?.stringValue == "authorization_pending")
        }
    }

    /// Finding 1 of issue 23 through the real binary: `prompt=none` is refused naming the parameter, and the page of
    /// a link says so in words and lists every custom parameter, escaped (HTTP-API.md §3.9).
    @Test func thePageNamesTheAuthTypeAndEveryParameterAndPromptNoneIsRefused() async throws {
        try await withEndToEnd(settings: Self.settings()) { e2e in
            func ask(_ customParameters: String) async throws -> OutboundResponse {
                try await e2e.postForm(
                    e2e.daemonURL + "/__/auth/device",
                    [
                        URLFormField(name: "providerId", value: "google.com"),
                        URLFormField(name: "authType", value: "linkViaRedirect"),
                        URLFormField(name: "idToken", value: "header.payload.signature"),
                        URLFormField(name: "resultChallenge", value: try PKCE.challenge(forVerifier: Self.verifier)),
                        URLFormField(name: "customParameters", value: customParameters),
                    ], freshBrowser: true)
            }
            let silent = try await ask(#"{"prompt":"none","login_hint":"alice"}"#)
            #expect(silent.status == 400, "\(silent.text)")
            #expect(silent.json?["error"]?["code"]?.stringValue == "invalid-request")
            #expect(silent.json?["error"]?["message"]?.stringValue?.contains("customParameters.prompt") == true)

            let asked = try await ask(#"{"login_hint":"alice","hd":"a&b"}"#)
            #expect(asked.status == 200, "\(asked.text)")
            let page = try await e2e.get(try #require(asked.json?["verification_uri_complete"]?.stringValue))
            #expect(page.status == 200)
            #expect(page.text.contains("A device asked to link Google to an existing account using code "))
            #expect(page.text.contains(#"<p id="device-auth-type" class="next">"#))
            #expect(page.text.contains("<li><code>login_hint</code> = <code>alice</code></li>"))
            #expect(page.text.contains("<li><code>hd</code> = <code>a&amp;b</code></li>"))
        }
    }

    @Test func theLoginCommandSignsIn() async throws {
        try await withEndToEnd(settings: Self.settings()) { e2e in
            let output = e2e.directory.appendingPathComponent("result.json")
            let login = try TestProcess(authHandler: [
                "login", "--server", e2e.daemonURL, "--provider", "google.com", "--param", "login_hint=alice",
                "--output", output.path,
            ])
            let complete = try #require(await login.waitForErrorLine(startingWith: "or open "))
            #expect(try await Self.confirm(e2e, completeURI: complete) == "done")
            #expect(await login.exitCode() == 0, "\(login.standardError)")
            let result = try JSONValue.parse(Array(Data(contentsOf: output)))
            #expect(result?["providerId"]?.stringValue == "google.com")
            let mode = try FileManager.default.attributesOfItem(atPath: output.path)[.posixPermissions] as? Int
            #expect(mode == 0o600)
        }
    }

    @Test func theLoginCommandExitsOneWhenDeclined() async throws {
        try await withEndToEnd(settings: Self.settings()) { e2e in
            let login = try TestProcess(authHandler: [
                "login", "--server", e2e.daemonURL, "--provider", "google.com",
            ])
            let complete = try #require(await login.waitForErrorLine(startingWith: "or open "))
            _ = try await Self.decide(e2e, completeURI: complete, decision: "cancel")
            #expect(await login.exitCode() == 1, "\(login.standardError)")
        }
    }
}
