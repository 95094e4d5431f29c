import AuthHandlerCore
import AuthHandlerHTTP
import Foundation
import TestSupport
import Testing

/// Several `serve` instances on one Redis (docs/OPERATIONS.md "Run several instances", docs/CONFIG.md `store`): any instance takes
/// any request of a sign-in, states and codes are used once across all of them, nginx needs no sticky sessions, an
/// instance may die mid-flow, and Redis may go away and come back. Real processes throughout: `serve`, `fake-idp`,
/// `redis-server` and `nginx`.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct EndToEndScaleOutTests {
    static let providers = ["google.com", "twitter.com", "apple.com"]

    @Test("started on one instance, called back on the other, redeemed on either; replays across instances refused")
    func instancesShareOneStore() async throws {
        try await withScaleOut { cluster in
            let (a, b) = (cluster.instances[0].url, cluster.instances[1].url)
            // Both ways round, each provider kind: OIDC with PKCE and nonce, OAuth 1.0a, and form_post.
            for (start, other) in [(a, b), (b, a)] {
                for provider in Self.providers {
                    let browser = cluster.browser()
                    let callback = try await browser.start(provider, at: start)
                    let pendingCookies = browser.jar.withLock { $0 }
                    let done = try await browser.deliver(callback, to: other)
                    let code = try #require(ScaleOutBrowser.code(of: done), "\(provider): \(done.status) \(done.text)")
                    // The instance that took the callback recorded its state in Redis: the same callback, cookie and
                    // all, on the instance that started it is a replay.
                    browser.jar.withLock { $0 = pendingCookies }
                    EndToEndBrowserBindingTests.expectInvalidState(
                        try await browser.deliver(callback, to: start, accept: "application/json"))
                    let redemption = try await browser.redeem(code, at: start)
                    #expect(redemption.status == 200, "\(provider): \(redemption.text)")
                    #expect(redemption.json?["providerId"]?.stringValue == provider)
                    EndToEndRefusalTests.expectError(
                        try await browser.redeem(code, at: other), status: 400, code: "invalid-result-code")
                    EndToEndRefusalTests.expectError(
                        try await browser.redeem(code, at: start), status: 400, code: "invalid-result-code")
                }
            }
        }
    }

    @Test("200 sign-ins through nginx round robin, 32 at a time, each in a browser of its own, all complete")
    func concurrentSignInsThroughNginx() async throws {
        try await withScaleOut(behindNginx: true) { cluster in
            let total = 200
            let providers = ["google.com", "twitter.com", "github.com"]
            // Every step through nginx: start, the IdP's callback (to publicURL, nginx's URL) and the redemption.
            @Sendable func flow(_ index: Int) async -> String? {
                let provider = providers[index % providers.count]
                let user = index % 2 == 0 ? "alice" : "bob"
                do {
                    let redemption = try await cluster.browser().signIn(provider, user: user, eventID: "flow-\(index)")
                    // Failures name the status and code only: a redemption's body holds tokens.
                    guard redemption.status == 200 else {
                        return "\(index) \(provider): \(redemption.status) \(redemption.errorCode ?? "")"
                    }
                    // Each result is its own flow's: its eventId and its user's named fields (e-mail, screen name,
                    // display name). Not a search of the whole profile for the other user's name: its raw claims hold
                    // random values such as the nonce, in which "bob" turns up about once in 6,000 sign-ins.
                    let eventID = redemption.json?["eventId"]?.stringValue ?? "none"
                    let named = ["email", "screenName", "displayName"].compactMap {
                        redemption.json?["profile"]?[$0]?.stringValue?.lowercased()
                    }.joined(separator: " ")
                    let other = user == "alice" ? "bob" : "alice"
                    guard eventID == "flow-\(index)", named.contains(user), !named.contains(other) else {
                        return "\(index) \(provider): another flow's result (eventId \(eventID), profile \(named))"
                    }
                    return nil
                } catch {
                    return "\(index) \(provider): \(error)"
                }
            }
            let clock = ContinuousClock()
            let began = clock.now
            let failures = await withTaskGroup(of: String?.self) { group in
                var failures: [String] = []
                var started = 0
                while started < 32 {
                    let index = started
                    group.addTask { await flow(index) }
                    started += 1
                }
                while let failure = await group.next() {
                    if let failure { failures.append(failure) }
                    if started < total {
                        let index = started
                        group.addTask { await flow(index) }
                        started += 1
                    }
                }
                return failures
            }
            let elapsed = clock.now - began
            #expect(failures.isEmpty, "\(failures.count) of \(total) failed, e.g. \(failures.prefix(3))")
            #expect(elapsed < .seconds(30), "200 sign-ins took \(elapsed)")
            // Round robin spread them: both instances started sign-ins and took callbacks, 200 of each between them.
            var starts: [Int] = []
            var completions: [Int] = []
            for instance in cluster.instances {
                let metrics = try await cluster.client.send(
                    OutboundRequest(method: "GET", url: instance.url + "/metrics"))
                starts.append(Self.sum("auth_handler_signins_started_total{", in: metrics.text))
                completions.append(Self.sum("auth_handler_signins_completed_total{", in: metrics.text))
            }
            #expect(starts.allSatisfy { $0 > 0 } && starts.reduce(0, +) == total, "starts per instance: \(starts)")
            #expect(
                completions.allSatisfy { $0 > 0 } && completions.reduce(0, +) == total,
                "callbacks per instance: \(completions)")
        }
    }

    @Test("kill -9 of the instance that started sign-ins: they complete through nginx on the survivor")
    func killedInstanceSignInsCompleteOnSurvivor() async throws {
        try await withScaleOut(behindNginx: true) { cluster in
            let doomed = cluster.instances[0]
            var pending: [(browser: ScaleOutBrowser, provider: String, callback: ScaleOutBrowser.Callback)] = []
            for index in 0..<6 {
                let provider = Self.providers[index % Self.providers.count]
                let browser = cluster.browser()
                pending.append(
                    (browser, provider, try await browser.start(provider, eventID: "k\(index)", at: doomed.url)))
            }
            await doomed.kill9()
            // The IdP's callbacks go to publicURL, nginx, which finds the killed instance refusing and uses the other.
            for (index, flow) in pending.enumerated() {
                let done = try await flow.browser.deliver(flow.callback, accept: "application/json")
                let code = try #require(ScaleOutBrowser.code(of: done), "\(flow.provider): \(done.status) \(done.text)")
                let redemption = try await flow.browser.redeem(code)
                #expect(redemption.status == 200, "\(flow.provider): \(redemption.text)")
                #expect(redemption.json?["eventId"]?.stringValue == "k\(index)")
            }
            for provider in Self.providers {
                let redemption = try await cluster.browser().signIn(provider)
                #expect(redemption.status == 200, "a new \(provider) sign-in after the kill: \(redemption.text)")
            }
        }
    }

    @Test(
        "Redis killed: readyz 503 on both, a callback 503 with Retry-After keeping its cookie; Redis back: all complete"
    )
    func redisDownAndBack() async throws {
        try await withScaleOut { cluster in
            let (a, b) = (cluster.instances[0].url, cluster.instances[1].url)
            #expect(try await cluster.browser().signIn("google.com", start: a, callback: b, redeem: a).status == 200)
            #expect(try await cluster.readiness() == [200, 200])
            let browser = cluster.browser()
            let callback = try await browser.start("google.com", at: a)

            await cluster.redis.stop()
            #expect(try await cluster.readiness() == [503, 503])
            // The reason goes to the operator's log; the browser-facing listener does not tell it (addresses, replies).
            let ready = try await browser.client.send(OutboundRequest(method: "GET", url: a + "/readyz"))
            #expect(ready.text == "session store unavailable\n", "\(ready.text)")
            #expect(cluster.instances[0].process.standardError.contains("event=readyz"))
            let refused = try await browser.deliver(callback, to: b, accept: "application/json")
            EndToEndRefusalTests.expectError(refused, status: 503, code: "unavailable")
            #expect(refused.headers["Retry-After"].flatMap { Int($0) }.map { $0 > 0 } == true, "\(refused.headers)")
            #expect(refused.headers.values(for: "Set-Cookie").isEmpty, "the 503 keeps the sign-in's cookie")
            #expect(browser.jar.withLock { $0.count } == 1)
            // A start writes nothing to the store, so sign-ins still start while Redis is down.
            let startedMeanwhile = cluster.browser()
            let laterCallback = try await startedMeanwhile.start("twitter.com", at: b)

            try await cluster.redis.start()
            // The instances reconnect by themselves, backing off at most 2 s between attempts: a bounded wait.
            let clock = ContinuousClock()
            let restarted = clock.now
            var statuses = try await cluster.readiness()
            for _ in 0..<200 where statuses != [200, 200] {
                try await Task.sleep(for: .milliseconds(25))
                statuses = try await cluster.readiness()
            }
            #expect(statuses == [200, 200], "readyz after Redis came back: \(statuses)")
            #expect(clock.now - restarted < .seconds(4), "reconnected after \(clock.now - restarted)")

            // The browser still holds its cookie: the callback it was refused now completes, on either instance.
            let retried = try await browser.deliver(callback, to: b)
            let code = try #require(ScaleOutBrowser.code(of: retried), "\(retried.status) \(retried.text)")
            #expect(try await browser.redeem(code, at: a).status == 200)
            let later = try await startedMeanwhile.deliver(laterCallback, to: a)
            let laterCode = try #require(ScaleOutBrowser.code(of: later), "\(later.status) \(later.text)")
            #expect(try await startedMeanwhile.redeem(laterCode, at: b).status == 200)
            #expect(try await cluster.browser().signIn("apple.com", start: b, callback: a, redeem: b).status == 200)
        }
    }

    @Test(
        "Redis holds only digests and sealed results: no token, secret, verifier or nonce, before or after redemption")
    func redisHoldsNothingReadable() async throws {
        try await withScaleOut { cluster in
            var secrets: Set<String> = []
            var results: [(browser: ScaleOutBrowser, code: String)] = []
            for (index, provider) in Self.providers.enumerated() {
                let browser = cluster.browser()
                let start = cluster.instances[index % 2].url
                let callback = try await browser.start(provider, at: start)
                if let verifier = callback.field("oauth_verifier") { secrets.insert(verifier) }
                let done = try await browser.deliver(callback, to: cluster.instances[(index + 1) % 2].url)
                results.append((browser, try #require(ScaleOutBrowser.code(of: done), "\(provider): \(done.text)")))
            }
            // What the IdP saw: the PKCE verifiers (token requests) and the nonces (authorization requests).
            let requests = try await cluster.client.send(
                OutboundRequest(method: "GET", url: cluster.idpURL + "/__fake/requests"))
            let seen = EndToEnd.verifiersAndNonces(in: requests.json?.arrayValue ?? [])
            #expect(
                seen.verifiers > 0 && seen.nonces > 0, "the IdP's requests gave no verifier or no nonce to look for")
            secrets.formUnion(seen.values)
            let unredeemed = try cluster.redis.dump()
            for (browser, code) in results {
                let redemption = try await browser.redeem(code, at: cluster.instances[0].url)
                #expect(redemption.status == 200, "\(redemption.text)")
                let credential = try #require(redemption.json?["credential"])
                // The raw OIDC nonce too: the IdP saw only its hash (HTTP-API.md §3.1); it lives sealed or nowhere.
                for key in ["accessToken", "idToken", "secret", "refreshToken", "nonce"] {
                    if let value = credential[key]?.stringValue { secrets.insert(value) }
                }
                secrets.insert(code)
            }
            let redeemed = try cluster.redis.dump()
            #expect(secrets.count >= 10, "collected \(secrets.count) values")

            // Keys: three used states and three results before redemption, each a hex SHA-256 under the prefix.
            let kinds = unredeemed.keys.map { $0.split(separator: ":").dropFirst().first.map(String.init) ?? "" }
            #expect(kinds.filter { $0 == "state" }.count == 3 && kinds.filter { $0 == "result" }.count == 3, "\(kinds)")
            for key in unredeemed.keys + redeemed.keys {
                #expect(
                    key.wholeMatch(of: /auth-handler:(state|result|claim):[0-9a-f]{64}/) != nil, "unexpected key \(key)"
                )
            }
            #expect(unredeemed.values.count > 1024, "the sealed results were read (\(unredeemed.values.count) bytes)")
            #expect(!redeemed.keys.contains { $0.contains(":result:") }, "redeemed results are deleted")
            for dump in [unredeemed, redeemed] {
                let bytes = Data(dump.keys.joined(separator: "\n").utf8) + dump.values
                // Counted, not printed: a failure message must not repeat the secrets.
                let found = secrets.filter { bytes.range(of: Data($0.utf8)) != nil }.count
                #expect(found == 0, "\(found) secret value(s) readable in Redis")
            }
        }
    }

    /// The sum of every sample of a Prometheus metric whose line starts with `prefix`.
    static func sum(_ prefix: String, in text: String) -> Int {
        text.split(separator: "\n").filter { $0.hasPrefix(prefix) }
            .compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }.reduce(0, +)
    }
}
