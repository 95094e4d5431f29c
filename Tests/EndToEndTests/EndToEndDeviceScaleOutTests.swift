import AuthHandlerCore
import AuthHandlerHTTP
import AuthHandlerProtocols
import Foundation
import TestSupport
import Testing

/// A device sign-in across two `serve` instances on one Redis (HTTP-API.md §3.9): the device asks and polls one
/// instance while the browser confirms and signs in on the other, and Redis holds no code that could be used; the
/// wrong-code limit of an address is one for both instances.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct EndToEndDeviceScaleOutTests {
    @Test func pollingOneInstanceWhileTheBrowserUsesTheOther() async throws {
        try await withScaleOut { cluster in
            let (a, b) = (cluster.instances[0].url, cluster.instances[1].url)
            let device = cluster.browser()
            let issued = try await device.postForm(
                a + "/__/auth/device",
                [
                    URLFormField(name: "providerId", value: "google.com"),
                    URLFormField(
                        name: "resultChallenge", value: try PKCE.challenge(forVerifier: EndToEndDeviceTests.verifier)),
                    URLFormField(name: "customParameters", value: #"{"login_hint":"alice"}"#),
                ], accept: "application/json")
            #expect(issued.status == 200, "\(issued.text)")
            let deviceCode = try #require(issued.json?["device_code"]?.stringValue)
            let userCode = try #require(issued.json?["user_code"]?.stringValue)
            let complete = try #require(issued.json?["verification_uri_complete"]?.stringValue)
            #expect(complete.hasPrefix(cluster.frontURL + "/__/auth/device?user_code="))
            func poll() async throws -> OutboundResponse {
                try await device.postForm(
                    a + "/__/auth/device/token",
                    [
                        URLFormField(name: "grant_type", value: "urn:ietf:params:oauth:grant-type:device_code"),
                        URLFormField(name: "device_code", value: deviceCode),
                        URLFormField(name: "verifier", value: EndToEndDeviceTests.verifier),
                    ], accept: "application/json")
            }
            #expect(try await poll().json?["error"]?.stringValue == "authorization_pending")

            // The browser, on instance B only.
            let browser = cluster.browser()
            let page = try await browser.get(browser.routed(complete, to: b))
            #expect(page.status == 200, "\(page.text)")
            let token = try #require(EndToEnd.firstMatch(#"name="confirm" value="([^"]*)""#, in: page.text))
            let answer = try await browser.postForm(
                b + "/__/auth/device",
                [
                    URLFormField(name: "user_code", value: userCode), URLFormField(name: "confirm", value: token),
                    URLFormField(name: "decision", value: "continue"),
                ])
            #expect(answer.status == 303, "\(answer.text)")
            var url = try #require(answer.headers["Location"])
            var callback: String?
            for _ in 0..<6 {
                let response = try await browser.get(url)
                guard let location = response.headers["Location"] else { break }
                if location.hasPrefix(cluster.frontURL) {
                    callback = location
                    break
                }
                url = location
            }
            let done = try await browser.get(browser.routed(try #require(callback), to: b))
            #expect(done.status == 303)
            #expect(done.headers["Location"]?.hasSuffix("/__/auth/device/done?outcome=signed-in") == true)

            // Nothing in Redis is a code that could be used, while the result waits.
            let dump = try cluster.redis.dump()
            let stored = String(decoding: dump.values, as: UTF8.self) + dump.keys.joined()
            for secret in [deviceCode, userCode, userCode.replacingOccurrences(of: "-", with: "")] {
                #expect(!stored.contains(secret))
            }

            try await EndToEndDeviceTests.waitTheInterval()
            let delivered = try await poll()
            #expect(delivered.status == 200, "\(delivered.text)")
            #expect(delivered.json?["providerId"]?.stringValue == "google.com")
            try await EndToEndDeviceTests.waitTheInterval()
            #expect(try await poll().json?["error"]?.stringValue == "invalid_grant")
        }
    }

    /// HTTP-API.md §3.9: an address's wrong-code allowance is kept in Redis, one for the cluster: 6 wrong codes on A and
    /// 4 on B use it up, and the next entry on either, the right code too, is `429` with `Retry-After`. Another address
    /// is not affected, and Redis holds no address in clear.
    @Test func theWrongCodeLimitIsSharedByTheInstances() async throws {
        try await withScaleOut { cluster in
            let (a, b) = (cluster.instances[0].url, cluster.instances[1].url)
            let issued = try await cluster.browser().postForm(
                a + "/__/auth/device",
                [
                    URLFormField(name: "providerId", value: "google.com"),
                    URLFormField(
                        name: "resultChallenge", value: try PKCE.challenge(forVerifier: EndToEndDeviceTests.verifier)),
                ], accept: "application/json")
            let userCode = try #require(issued.json?["user_code"]?.stringValue, "\(issued.text)")
            // The instances trust 127.0.0.1 as a proxy, so X-Forwarded-For names the client.
            func enter(_ code: String, at instance: String, from address: String) async throws -> OutboundResponse {
                try await cluster.client.send(
                    OutboundRequest(
                        method: "GET", url: instance + "/__/auth/device?user_code=" + code,
                        headers: ["X-Forwarded-For": address]))
            }
            // A code with a vowel is never a user code (RFC 8628 §6.1), so always wrong.
            for _ in 0..<6 { #expect(try await enter("AAAA-AAAA", at: a, from: "203.0.113.5").status == 400) }
            for _ in 0..<4 { #expect(try await enter("AAAA-AAAA", at: b, from: "203.0.113.5").status == 400) }
            for instance in [a, b] {
                let limited = try await enter(userCode, at: instance, from: "203.0.113.5")
                #expect(limited.status == 429, "\(instance): \(limited.status)")
                let retryAfter = limited.headers["Retry-After"].flatMap { Int($0) }
                #expect(
                    retryAfter.map { (1...60).contains($0) } == true, "Retry-After: \(String(describing: retryAfter))")
            }
            #expect(try await enter(userCode, at: b, from: "203.0.113.6").status == 200)
            #expect(try await enter(userCode, at: a, from: "203.0.113.6").status == 200)

            let dump = try cluster.redis.dump()
            #expect(dump.keys.contains { $0.hasPrefix("auth-handler:counter:") }, "\(dump.keys)")
            #expect(!(dump.keys.joined() + String(decoding: dump.values, as: UTF8.self)).contains("203.0.113"))
        }
    }
}
