import AuthHandlerCore
import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerProtocols
import AuthHandlerStore
import Foundation
import TestSupport
import Testing

/// HTTP-API.md §3.1–§3.3 (browser binding) through the real daemon: the pending sign-in lives sealed in the browser's
/// cookie, only that browser completes it, once; results are redeemable only with the app's verifier; the store holds
/// nothing readable. Each refusal checks status and code, and that the daemon keeps serving.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct EndToEndBrowserBindingTests {
    /// The cookie name of the sign-in whose callback URL (or form) carries `state` or `oauth_token`.
    static func cookieName(forCallback callback: String) throws -> String {
        let query = try FormURLEncoding.decode(String(callback.split(separator: "?", maxSplits: 1).last ?? ""))
        let key = try #require(query.first(named: "state") ?? query.first(named: "oauth_token"))
        return "auth-handler-" + String(Base64.urlEncode(try SHA256.hash(Array(key.utf8))).prefix(16))
    }

    static func expectInvalidState(_ response: OutboundResponse, sourceLocation: SourceLocation = #_sourceLocation) {
        EndToEndRefusalTests.expectError(response, status: 400, code: "invalid-state", sourceLocation: sourceLocation)
    }

    @Test("start sets the sealed cookie (HttpOnly, Lax; None+Secure for form_post) and writes nothing to the store")
    func startSetsCookie() async throws {
        try await withEndToEnd { e2e in
            let start = try await e2e.get(e2e.startURL("google.com"))
            #expect(start.status == 302)
            let cookie = try #require(start.headers["Set-Cookie"])
            #expect(cookie.hasPrefix("auth-handler-"))
            for attribute in ["Path=/", "Max-Age=600", "HttpOnly", "SameSite=Lax"] {
                #expect(cookie.contains("; \(attribute)"), "\(cookie.split(separator: ";").dropFirst())")
            }
            #expect(!cookie.contains("Secure"), "an http publicURL gets no Secure attribute")
            let location = try #require(start.headers["Location"])
            #expect(try cookie.hasPrefix(Self.cookieName(forCallback: location) + "="), "the tag is of the state")

            let apple = try await e2e.get(e2e.startURL("apple.com"))
            let appleCookie = try #require(apple.headers["Set-Cookie"])
            #expect(appleCookie.contains("; Secure") && appleCookie.contains("; SameSite=None"))

            // Thousands of starts later the store file has not grown a row: starts write nothing.
            let size = { () -> Int in
                let path = e2e.directory.appendingPathComponent("state.sqlite").path
                return (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
            }
            let before = size()
            for _ in 0..<200 { _ = try await e2e.get(e2e.startURL("google.com"), freshBrowser: true) }
            #expect(size() == before, "a start wrote to the store")
        }
    }

    @Test("a callback from another browser (no cookie) → 400 invalid-state; the starting browser still completes")
    func callbackFromAnotherBrowser() async throws {
        try await withEndToEnd { e2e in
            let walk = try await e2e.walk(
                from: e2e.startURL("google.com", ["customParameters": #"{"login_hint":"bob"}"#]), stopAtCallback: true)
            let callback = try #require(walk.callbackURL)
            let stolen = try await e2e.get(callback, accept: "application/json", freshBrowser: true)
            Self.expectInvalidState(stolen)
            let page = try await e2e.get(callback, freshBrowser: true)
            #expect(page.status == 400 && page.text.contains(#"<code id="error-code">invalid-state</code>"#))
            // The refusals recorded nothing: the browser that started the sign-in completes it.
            let own = try await e2e.get(callback)
            #expect(own.status == 303)
            let location = try #require(own.headers["Location"])
            #expect(location.hasPrefix(EndToEnd.appRedirect + "?code="))
            #expect(own.headers["Set-Cookie"]?.contains("Max-Age=0") == true, "the 303 clears the cookie")
            let code = try #require(
                try FormURLEncoding.decode(String(location.split(separator: "?")[1])).first(named: "code"))
            #expect(try await e2e.redeem(code: code).status == 200)
            try await EndToEndRefusalTests.expectStillServing(e2e)
        }
    }

    @Test("the cookie of another sign-in, a cookie moved under another name, a tampered cookie → 400 invalid-state")
    func wrongOrTamperedCookie() async throws {
        try await withEndToEnd { e2e in
            let first = try #require(
                try await e2e.walk(
                    from: e2e.startURL("google.com", ["customParameters": #"{"login_hint":"alice"}"#]),
                    stopAtCallback: true
                ).callbackURL)
            let second = try #require(
                try await e2e.walk(
                    from: e2e.startURL("twitter.com", ["customParameters": #"{"screen_name":"bob"}"#]),
                    stopAtCallback: true
                ).callbackURL)
            let firstName = try Self.cookieName(forCallback: first)
            let secondName = try Self.cookieName(forCallback: second)
            let jar = e2e.cookieJar.withLock { $0 }
            let firstValue = try #require(jar[firstName])
            let secondValue = try #require(jar[secondName])

            e2e.cookieJar.withLock { $0 = [secondName: secondValue] }
            Self.expectInvalidState(try await e2e.get(first, accept: "application/json"))
            e2e.cookieJar.withLock { $0 = [firstName: secondValue] }
            Self.expectInvalidState(try await e2e.get(first, accept: "application/json"))
            var tampered = Array(firstValue.utf8)
            tampered[tampered.count / 2] =
                tampered[tampered.count / 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            e2e.cookieJar.withLock { $0 = [firstName: String(decoding: tampered, as: UTF8.self)] }
            let refused = try await e2e.get(first, accept: "application/json")
            Self.expectInvalidState(refused)
            #expect(refused.headers["Set-Cookie"]?.hasPrefix(firstName + "=;") == true, "a 400 clears the cookie")

            e2e.cookieJar.withLock { $0 = [firstName: firstValue, secondName: secondValue] }
            for callback in [first, second] {
                let done = try await e2e.get(callback)
                #expect(done.status == 303 && done.headers["Location"]?.contains("?code=") == true, "\(done.text)")
            }
            try await EndToEndRefusalTests.expectStillServing(e2e)
        }
    }

    @Test("a replayed callback, cookie and all → 400 invalid-state")
    func replayedCallback() async throws {
        try await withEndToEnd { e2e in
            for (provider, hint) in [
                ("google.com", #"{"login_hint":"alice"}"#), ("twitter.com", #"{"screen_name":"alice"}"#),
            ] {
                let walk = try await e2e.walk(
                    from: e2e.startURL(provider, ["customParameters": hint]), stopAtCallback: true)
                let callback = try #require(walk.callbackURL)
                let saved = e2e.cookieJar.withLock { $0 }
                #expect(try await e2e.get(callback).status == 303)
                e2e.cookieJar.withLock { $0 = saved }
                Self.expectInvalidState(try await e2e.get(callback, accept: "application/json"))
            }
            try await EndToEndRefusalTests.expectStillServing(e2e)
        }
    }

    @Test(
        "kill -9 and a restart still complete a sign-in in flight; another stateKey refuses it; previousStateKeys opens it"
    )
    func stateKeyPersistenceAndRotation() async throws {
        let e2e = try await EndToEnd.start()
        var current = e2e
        do {
            // Twitter: its callback carries no port-bound redirect_uri check at the exchange, so the restarted daemon's
            // new port can take the callback the IdP addressed to the old one.
            func inFlight(_ pair: EndToEnd) async throws -> String {
                let walk = try await pair.walk(
                    from: pair.startURL("twitter.com", ["customParameters": #"{"screen_name":"alice"}"#]),
                    stopAtCallback: true)
                return try #require(walk.callbackURL)
            }
            func deliver(_ callback: String, from old: EndToEnd, to pair: EndToEnd) async throws -> OutboundResponse {
                try await pair.get(
                    callback.replacingOccurrences(of: old.daemonURL, with: pair.daemonURL), accept: "application/json")
            }
            let generated = e2e.directory.appendingPathComponent("state.key")
            var callback = try await inFlight(current)
            var previous = current
            current = try await current.restartingDaemon(kill: true)
            #expect(FileManager.default.fileExists(atPath: generated.path))
            let mode = try FileManager.default.attributesOfItem(atPath: generated.path)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            let resumed = try await deliver(callback, from: previous, to: current)
            #expect(resumed.status == 303 && resumed.headers["Location"]?.contains("?code=") == true, "\(resumed.text)")

            let otherKey = e2e.directory.appendingPathComponent("other-state-key")
            try Data((Base64.urlEncode(try SecureRandom.bytes(32)) + "\n").utf8).write(to: otherKey)
            callback = try await inFlight(current)
            previous = current
            current = try await current.restartingDaemon(settings: ["stateKey": "{\"file\": \"\(otherKey.path)\"}"])
            Self.expectInvalidState(try await deliver(callback, from: previous, to: current))

            callback = try await inFlight(current)
            previous = current
            let oldKeyOnly = try await current.restartingDaemon(settings: [
                "stateKey": "{\"file\": \"\(generated.path)\"}"
            ])
            current = oldKeyOnly
            Self.expectInvalidState(try await deliver(callback, from: previous, to: current))
            callback = try await inFlight(current)
            previous = current
            current = try await current.restartingDaemon(settings: [
                "stateKey": "{\"file\": \"\(otherKey.path)\"}",
                "previousStateKeys": "[{\"file\": \"\(generated.path)\"}]",
            ])
            let rotated = try await deliver(callback, from: previous, to: current)
            #expect(rotated.status == 303 && rotated.headers["Location"]?.contains("?code=") == true, "\(rotated.text)")
            try await EndToEndRefusalTests.expectStillServing(current)
        } catch {
            await current.stop()
            throw error
        }
        await current.stop()
    }

    @Test("resultChallenge is required by default; a verifier for a result without one is refused")
    func resultChallengeRules() async throws {
        try await withEndToEnd { e2e in
            EndToEndRefusalTests.expectError(
                try await e2e.get(e2e.startURL("google.com", ["resultChallenge": ""]), accept: "application/json"),
                status: 400, code: "invalid-request")
            try await EndToEndRefusalTests.expectStillServing(e2e)
        }
        try await withEndToEnd(settings: ["requireResultChallenge": "false"]) { e2e in
            let walk = try await e2e.signIn("google.com", ["resultChallenge": ""])
            let code = try #require(walk.appQuery.first(named: "code"))
            EndToEndRefusalTests.expectError(
                try await e2e.redeem(code: code, verifier: EndToEnd.appVerifier), status: 400,
                code: "invalid-result-code")
            #expect(try await e2e.redeem(code: code, verifier: nil).status == 200, "the refusal left it redeemable")
            try await EndToEndRefusalTests.expectStillServing(e2e)
        }
    }

    @Test("a redirectUrl whose query holds the handler's own names, or with port 99999 → 400 unauthorized-redirect-url")
    func pollutedRedirectURL() async throws {
        try await withEndToEnd { e2e in
            for redirect in [
                EndToEnd.appRedirect + "?code=ATTACKER", EndToEnd.appRedirect + "?x=1&eventId=e",
                EndToEnd.appRedirect + "?error=x", EndToEnd.appRedirect + "?error_description=x",
                EndToEnd.appRedirect + "?c%6Fde=ATTACKER", "http://127.0.0.1:99999/done",
            ] {
                EndToEndRefusalTests.expectError(
                    try await e2e.get(e2e.startURL("google.com", redirect: redirect), accept: "application/json"),
                    status: 400, code: "unauthorized-redirect-url")
            }
            try await EndToEndRefusalTests.expectStillServing(e2e)
        }
    }

    @Test("request and request_uri are reserved; a parameter name outside [A-Za-z0-9._~-] → invalid-request")
    func requestObjectsReserved() async throws {
        try await withEndToEnd { e2e in
            for name in ["request", "request_uri", "Request_URI"] {
                let response = try await e2e.get(
                    e2e.startURL("google.com", ["customParameters": "{\"\(name)\":\"x\"}"]), accept: "application/json")
                EndToEndRefusalTests.expectError(response, status: 400, code: "reserved-custom-parameter")
                #expect(response.json?["error"]?["message"]?.stringValue?.contains(name) == true)
            }
            for name in ["a b", "x=y", "ü", ""] {
                EndToEndRefusalTests.expectError(
                    try await e2e.get(
                        e2e.startURL("google.com", ["customParameters": "{\"\(name)\":\"x\"}"]),
                        accept: "application/json"),
                    status: 400, code: "invalid-request")
            }
            try await EndToEndRefusalTests.expectStillServing(e2e)
        }
    }

    /// The flood is of OAuth 1.0a starts, each of which would call the provider for a request token, so the start
    /// rate limit (HTTP-API.md §2.4) must refuse the flooding address; the sign-in after it comes from another one.
    @Test("20,000 starts from one client are limited to its allowance and lock nobody else out")
    func startFloodLocksNobodyOut() async throws {
        let limit = StartRateLimit.default
        try await withEndToEnd(settings: ["trustedProxies": #"["127.0.0.1"]"#]) { e2e in
            let flood = OutboundRequest(
                method: "GET", url: e2e.startURL("twitter.com"), headers: ["X-Forwarded-For": "198.51.100.7"])
            let began = ContinuousClock.now
            let answers = try await withThrowingTaskGroup(of: Int.self) { group in
                var answers: [Int: Int] = [:]
                var sent = 0
                for _ in 0..<32 {
                    group.addTask { try await e2e.send(flood, freshBrowser: true).status }
                    sent += 1
                }
                while let status = try await group.next() {
                    answers[status, default: 0] += 1
                    if sent < 20_000 {
                        group.addTask { try await e2e.send(flood, freshBrowser: true).status }
                        sent += 1
                    }
                }
                return answers
            }
            let seconds = (ContinuousClock.now - began).components.seconds + 1
            // The burst, then one start per 60/perMinute seconds the flood lasted; every other start is refused.
            let allowance = limit.burst + Int(seconds) * limit.perMinute / 60 + 1
            #expect(Set(answers.keys).isSubset(of: [302, 429]), "answers: \(answers)")
            #expect(answers[302, default: 0] <= allowance, "answers: \(answers), allowance \(allowance)")
            #expect(answers[429, default: 0] >= 20_000 - allowance, "answers: \(answers)")
            #expect(try await e2e.idpRequestCount(to: "/oauth1/request_token") <= allowance)
            // The flooding address is still limited; the daemon's own peer, another client, signs in at once.
            var floodForJSON = flood
            floodForJSON.headers.set(name: "Accept", value: "application/json")
            EndToEndRefusalTests.expectError(
                try await e2e.send(floodForJSON, freshBrowser: true), status: 429, code: "too-many-requests")
            let walk = try await e2e.signIn("twitter.com")
            let code = try #require(walk.appQuery.first(named: "code"), "\(walk.appQuery)")
            #expect(try await e2e.redeem(code: code).status == 200)
        }
    }

    @Test("the SQLite file and its WAL hold no access token, ID token, OAuth 1.0a secret, PKCE verifier or nonce")
    func storeHoldsNothingReadable() async throws {
        try await withEndToEnd { e2e in
            var secrets: Set<String> = []
            var codes: [String] = []
            for provider in ["twitter.com", "google.com", "apple.com"] {
                let walk = try await e2e.signIn(provider)
                codes.append(try #require(walk.appQuery.first(named: "code"), "\(provider): \(walk.appQuery)"))
            }
            // What the IdP saw: the PKCE verifiers (token requests) and the nonces (authorization requests).
            let requests = try await e2e.get(e2e.idpURL + "/__fake/requests").json?.arrayValue ?? []
            let seen = EndToEnd.verifiersAndNonces(in: requests)
            #expect(
                seen.verifiers > 0 && seen.nonces > 0, "the IdP's requests gave no verifier or no nonce to look for")
            secrets.formUnion(seen.values)
            let path = e2e.directory.appendingPathComponent("state.sqlite").path
            func fileBytes() -> Data {
                let main = (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data()
                return main + ((try? Data(contentsOf: URL(fileURLWithPath: path + "-wal"))) ?? Data())
            }
            // The results wait, sealed, in the store; read it before and after they are redeemed.
            let unredeemed = fileBytes()
            for code in codes {
                let redemption = try await e2e.redeem(code: code)
                #expect(redemption.status == 200, "\(redemption.text)")
                let credential = try #require(redemption.json?["credential"])
                for key in ["accessToken", "idToken", "secret", "refreshToken"] {
                    if let value = credential[key]?.stringValue { secrets.insert(value) }
                }
                if let email = redemption.json?["profile"]?["email"]?.stringValue { secrets.insert(email) }
            }
            #expect(secrets.count >= 8, "collected \(secrets.count) values")
            #expect(unredeemed.count > 4096, "the store file was read")
            for bytes in [unredeemed, fileBytes()] {
                // Counted, not printed: a failure message must not repeat the secrets.
                let found = secrets.filter { bytes.range(of: Data($0.utf8)) != nil }.count
                #expect(found == 0, "\(found) secret value(s) readable in the store file")
            }
        }
    }

    @Test("starts that call the provider over startRateLimit → 429 too-many-requests with Retry-After")
    func startRateLimit() async throws {
        try await withEndToEnd(settings: ["startRateLimit": #"{"perMinute": 1, "burst": 2}"#]) { e2e in
            // The first google.com start fetches discovery (counted); later ones use the cached document (not counted).
            #expect(try await e2e.get(e2e.startURL("google.com")).status == 302)
            #expect(try await e2e.get(e2e.startURL("twitter.com")).status == 302)
            let limited = try await e2e.get(e2e.startURL("twitter.com"), accept: "application/json")
            EndToEndRefusalTests.expectError(limited, status: 429, code: "too-many-requests")
            let retryAfter = try #require(limited.headers["Retry-After"].flatMap { Int($0) })
            #expect((1...60).contains(retryAfter))
            // A forwarded-for header from a peer that is not a trusted proxy changes nothing.
            let spoofed = try await e2e.send(
                OutboundRequest(
                    method: "GET", url: e2e.startURL("twitter.com"),
                    headers: ["X-Forwarded-For": "198.51.100.7", "Accept": "application/json"]))
            EndToEndRefusalTests.expectError(spoofed, status: 429, code: "too-many-requests")
            // Starts that call no provider are not limited; a callback that will exchange a code shares the bucket.
            for _ in 0..<5 { #expect(try await e2e.get(e2e.startURL("google.com")).status == 302) }
            let walk = try await e2e.walk(
                from: e2e.startURL("google.com", ["customParameters": #"{"login_hint":"alice"}"#]), stopAtCallback: true
            )
            let callback = try await e2e.get(try #require(walk.callbackURL), accept: "application/json")
            EndToEndRefusalTests.expectError(callback, status: 429, code: "too-many-requests")
            #expect(try await e2e.get(e2e.daemonURL + "/healthz").status == 200)
        }
    }

    @Test("ten sign-ins started in one browser before any completes all complete, each with its own cookie")
    func tenParallelSignInsInOneBrowser() async throws {
        // Fifteen provider calls from one address (five request tokens, ten exchanges): over the default burst.
        try await withEndToEnd(settings: ["startRateLimit": #"{"perMinute": 60, "burst": 20}"#]) { e2e in
            var callbacks: [String] = []
            for index in 0..<10 {
                let provider = index % 2 == 0 ? "google.com" : "twitter.com"
                let hint = provider == "google.com" ? #"{"login_hint":"alice"}"# : #"{"screen_name":"bob"}"#
                let walk = try await e2e.walk(
                    from: e2e.startURL(provider, ["customParameters": hint, "eventId": "e\(index)"]),
                    stopAtCallback: true)
                callbacks.append(try #require(walk.callbackURL))
            }
            #expect(e2e.cookieJar.withLock { $0.count } == 10)
            #expect((e2e.cookieHeader() ?? "").utf8.count > 10 * 400, "the browser sends all ten cookies")
            for (index, callback) in callbacks.enumerated().reversed() {
                let done = try await e2e.get(callback)
                let location = try #require(done.headers["Location"], "\(done.status) \(done.text)")
                let query = try FormURLEncoding.decode(String(location.split(separator: "?")[1]))
                #expect(query.first(named: "eventId") == "e\(index)")
                let code = try #require(query.first(named: "code"), "\(query)")
                #expect(try await e2e.redeem(code: code).status == 200)
            }
            #expect(e2e.cookieJar.withLock { $0.isEmpty }, "every callback cleared its own cookie")
        }
    }

    @Test(
        "a browser keeps at most ten pending sign-ins: a start beyond them clears the oldest, so no page can fill the Cookie header"
    )
    func pendingSignInsPerBrowserAreCapped() async throws {
        // Ten exchanges and a discovery from one address: over the default burst.
        try await withEndToEnd(settings: ["startRateLimit": #"{"perMinute": 60, "burst": 20}"#]) { e2e in
            var callbacks: [String] = []
            for index in 0..<13 {
                // Large pending sign-ins: a 128-character eventId each, the most allowed.
                let eventID = String(repeating: "e", count: 116) + String(format: "%012d", index)
                let walk = try await e2e.walk(
                    from: e2e.startURL(
                        "google.com", ["customParameters": #"{"login_hint":"alice"}"#, "eventId": eventID]),
                    stopAtCallback: true)
                callbacks.append(try #require(walk.callbackURL))
                #expect(e2e.cookieJar.withLock { $0.count } == min(index + 1, 10))
            }
            for callback in callbacks.prefix(3) {
                Self.expectInvalidState(try await e2e.get(callback, accept: "application/json"))
            }
            for callback in callbacks.suffix(10) {
                let done = try await e2e.get(callback)
                #expect(done.status == 303 && done.headers["Location"]?.contains("?code=") == true, "\(done.text)")
            }
        }
    }

    @Test(
        "over-long redirectUrl, eventId or scopes, or a pending sign-in too large for its cookie → 400 invalid-request")
    func oversizedStateRefused() async throws {
        try await withEndToEnd { e2e in
            let padded = { (length: Int) in
                EndToEnd.appRedirect + "?pad=" + String(repeating: "a", count: length - EndToEnd.appRedirect.count - 5)
            }
            let scopes = { (count: Int) in (0..<count).map { String(format: "scope.%09d", $0) }.joined(separator: ",") }
            let refusals: [(parameters: [String: String], redirect: String, says: String)] = [
                ([:], padded(513), "redirectUrl is longer than 512 bytes"),
                (["eventId": String(repeating: "e", count: 129)], EndToEnd.appRedirect, "eventId must be at most 128"),
                (["scopes": scopes(18)], EndToEnd.appRedirect, "scopes is longer than 256 bytes"),
                // Each within its own bound, together too large for a 1,536-byte cookie.
                (
                    ["eventId": String(repeating: "e", count: 128), "scopes": scopes(16)], padded(512),
                    "does not fit in a 1536-byte cookie"
                ),
            ]
            for refusal in refusals {
                let response = try await e2e.get(
                    e2e.startURL("google.com", refusal.parameters, redirect: refusal.redirect),
                    accept: "application/json")
                EndToEndRefusalTests.expectError(response, status: 400, code: "invalid-request")
                let message = response.json?["error"]?["message"]?.stringValue ?? ""
                #expect(message.contains(refusal.says), "\(message)")
                #expect(response.headers["Set-Cookie"] == nil)
            }
            // At the bounds one at a time, each is accepted.
            for (parameters, redirect) in [
                ([:], padded(512)), (["eventId": String(repeating: "e", count: 128)], EndToEnd.appRedirect),
                (["scopes": scopes(16)], EndToEnd.appRedirect),
            ] {
                let response = try await e2e.get(e2e.startURL("google.com", parameters, redirect: redirect))
                #expect(response.status == 302, "\(response.text)")
            }
            try await EndToEndRefusalTests.expectStillServing(e2e)
        }
    }

    @Test("a second redemption while the first waits on the backend → 409 redemption-in-progress with Retry-After")
    func redemptionInProgress() async throws {
        // The backend holds the first redemption for 6 s of an 8 s provider time-out, a window the second redemption
        // reaches even on a loaded machine.
        try await withEndToEnd(backend: .identityToolkit, settings: ["providerTimeoutSeconds": "8"]) { e2e in
            let walk = try await e2e.signIn("google.com")
            let code = try #require(walk.appQuery.first(named: "code"))
            try await e2e.queueFailure(
                #"{"endpoint": "identitytoolkit/v1/accounts:signInWithIdp", "kind": "delay", "delayMs": 6000}"#)
            // Once the backend has the first redemption (and sits on it for 6 s), the code is held.
            let first = try await e2e.whileIdPHolds(path: "/identitytoolkit/v1/accounts:signInWithIdp") {
                try await e2e.redeem(code: code)
            }
            let held = try await e2e.redeem(code: code)
            EndToEndRefusalTests.expectError(held, status: 409, code: "redemption-in-progress")
            #expect(held.headers["Retry-After"].flatMap { Int($0) } == 9, "providerTimeoutSeconds 8 + 1")
            #expect(try await first.value.status == 200)
            EndToEndRefusalTests.expectError(
                try await e2e.redeem(code: code), status: 400, code: "invalid-result-code")
        }
    }

    @Test("serve runs with core dumps off (RLIMIT_CORE 0)")
    func coreDumpsOff() async throws {
        try await withEndToEnd { e2e in
            let limits = try String(contentsOfFile: "/proc/\(e2e.daemon.processIdentifier)/limits", encoding: .utf8)
            let line = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") })
            #expect(line.split(separator: " ").filter { !$0.isEmpty }.dropFirst(4).prefix(2) == ["0", "0"], "\(line)")
        }
    }
}
