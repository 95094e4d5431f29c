import Foundation
import Synchronization
import TestSupport
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP
@testable import AuthHandlerStore
@testable import auth_handler

/// Device sign-in in process on the memory store (HTTP-API.md §3.9): issuing, the confirmation facts, polls, and a
/// user code drawn again when the store already holds it.
struct DeviceFlowTests {
    /// The memory store, refusing the first `refusals` user-code records as a store refuses a key in use (`.conflict`),
    /// and every count when `countsFail` (a store that cannot be reached).
    final class CollidingStore: SessionStore, DeviceStore {
        let inner = MemorySessionStore()
        let refusals: Mutex<Int>
        let countsFail: Bool
        let userCodeInserts = Mutex(0)

        init(refusals: Int, countsFail: Bool = false) {
            self.refusals = Mutex(refusals)
            self.countsFail = countsFail
        }

        func recordUsedState(key: String, expiresAt: Date) async throws(StoreError) -> Bool {
            try await inner.recordUsedState(key: key, expiresAt: expiresAt)
        }
        func insertResult(code: String, payload: [UInt8], expiresAt: Date) async throws(StoreError) {
            try await inner.insertResult(code: code, payload: payload, expiresAt: expiresAt)
        }
        func putDeviceRecord(
            kind: DeviceRecordKind, key: String, payload: [UInt8], expiresAt: Date
        ) async throws(StoreError) {
            if kind == .request {
                userCodeInserts.withLock { $0 += 1 }
                let refuse = refusals.withLock { left in
                    defer { left -= 1 }
                    return left > 0
                }
                if refuse { throw StoreError(.conflict, detail: "a request record with this key exists") }
            }
            try await inner.putDeviceRecord(kind: kind, key: key, payload: payload, expiresAt: expiresAt)
        }
        func deviceRecord(kind: DeviceRecordKind, key: String, now: Date) async throws(StoreError) -> [UInt8]? {
            try await inner.deviceRecord(kind: kind, key: key, now: now)
        }
        func deleteDeviceRecord(kind: DeviceRecordKind, key: String) async throws(StoreError) {
            try await inner.deleteDeviceRecord(kind: kind, key: key)
        }
        func decideOnce(key: String, expiresAt: Date) async throws(StoreError) -> Bool {
            try await inner.decideOnce(key: key, expiresAt: expiresAt)
        }
        func isDecided(key: String, now: Date) async throws(StoreError) -> Bool {
            try await inner.isDecided(key: key, now: now)
        }
        func peekResult(code: String, now: Date) async throws(StoreError) -> ResultLookup {
            try await inner.peekResult(code: code, now: now)
        }
        func claimResult(code: String, now: Date) async throws(StoreError) -> ResultLookup {
            try await inner.claimResult(code: code, now: now)
        }
        func releaseResult(code: String) async throws(StoreError) { try await inner.releaseResult(code: code) }
        func deleteResult(code: String) async throws(StoreError) { try await inner.deleteResult(code: code) }
        func sweep(now: Date) async throws(StoreError) -> Int { try await inner.sweep(now: now) }
        func healthProblem() async -> String? { nil }
        func incrementCounter(key: String, window: Duration) async throws(StoreError) -> CounterReading {
            if countsFail {
                throw StoreError(.unavailable, detail: "redis EVAL (increment counter): connection refused")
            }
            return try await inner.incrementCounter(key: key, window: window)
        }
        func decrementCounter(key: String) async throws(StoreError) { try await inner.decrementCounter(key: key) }
    }

    static func flow(
        store: any SessionStore & DeviceStore, providers offered: [String] = [], lifetime: Int = 600,
        interval: Int = 5,
        clock: TestClock? = nil
    ) throws -> SignInFlow {
        let base = try ServiceSignInPickerTests.flow()
        var settings = base.settings
        settings.deviceAuthorization = DeviceAuthorizationConfig(
            enabled: true, providers: offered, codeLifetimeSeconds: lifetime, intervalSeconds: interval)
        let observer = SignInTelemetry(log: EventLog(sink: DiscardingLogSink()), metrics: Metrics())
        guard let clock else {
            return SignInFlow(
                settings: settings, providers: base.providers, store: store, backend: NoSignInBackend(),
                http: ScriptedHTTP([]), observer: observer)
        }
        return SignInFlow(
            settings: settings, providers: base.providers, store: store, backend: NoSignInBackend(),
            http: ScriptedHTTP([]), observer: observer, now: clock.read,
            devicePacing: DevicePacing(clock: clock))
    }

    /// The RFC 6749 §5.2 error of a poll of `deviceCode`, and its interval with `slow_down`.
    static func poll(_ flow: SignInFlow, _ deviceCode: String) async -> (error: String, interval: Int?) {
        let fields = ServiceSignInPickerTests.fields([
            ("grant_type", DeviceAuthorization.grantType), ("device_code", deviceCode), ("verifier", "v"),
        ])
        switch await flow.pollDevice(fields) {
        case .refused(let error, _, _, let interval): return (error, interval)
        case .delivered: return ("delivered", nil)
        }
    }

    /// RFC 8628 §3.5: a poll sooner than the interval adds 5 s to it, and waiting the old interval is then too soon.
    @Test func pollingTooSoonSlowsDownByExactlyFiveSeconds() async throws {
        let clock = TestClock.startingNow()
        let flow = try Self.flow(store: MemorySessionStore(now: clock.read), interval: 1, clock: clock)
        let deviceCode = try await flow.issueDevice(Self.request, client: "203.0.113.9").deviceCode
        #expect(await Self.poll(flow, deviceCode).error == "authorization_pending")
        let hurried = await Self.poll(flow, deviceCode)
        #expect(hurried.error == "slow_down" && hurried.interval == 6)
        clock.advance(by: .milliseconds(1100))
        let stillHurried = await Self.poll(flow, deviceCode)
        #expect(stillHurried.error == "slow_down" && stillHurried.interval == 11)
        clock.advance(by: .milliseconds(11_100))
        #expect(await Self.poll(flow, deviceCode).error == "authorization_pending")
    }

    /// A client that waits its interval polls 50 times without a `slow_down`, and the code expires under it.
    @Test func aPatientClientIsNeverSlowedAndTheCodeExpires() async throws {
        let clock = TestClock.startingNow()
        let flow = try Self.flow(store: MemorySessionStore(now: clock.read), lifetime: 30, interval: 1, clock: clock)
        let deviceCode = try await flow.issueDevice(Self.request, client: "203.0.113.9").deviceCode
        var errors: [String] = []
        for _ in 0..<50 {
            errors.append(await Self.poll(flow, deviceCode).error)
            clock.advance(by: .seconds(1))
        }
        #expect(!errors.contains("slow_down"))
        #expect(errors.first == "authorization_pending")
        #expect(errors.last == "expired_token")
        #expect(Set(errors) == ["authorization_pending", "expired_token"])
        #expect(errors.firstIndex(of: "expired_token") == 30)
    }

    static let request = ServiceSignInPickerTests.fields([
        ("providerId", "google.com"), ("scopes", "calendar"), ("resultChallenge", ServiceSignInPickerTests.challenge),
    ])

    @Test func issuesPendsAndDescribesTheRequestOnTheMemoryStore() async throws {
        let flow = try Self.flow(store: MemorySessionStore())
        let issued = try await flow.issueDevice(Self.request, client: "203.0.113.9")
        #expect(issued.verificationURI == "https://auth.example.com/__/auth/device")
        #expect(issued.verificationURIComplete == issued.verificationURI + "?user_code=" + issued.userCode)
        #expect(issued.expiresIn == 600 && issued.interval == 5)
        let poll = ServiceSignInPickerTests.fields([
            ("grant_type", DeviceAuthorization.grantType), ("device_code", issued.deviceCode), ("verifier", "v"),
        ])
        guard case .refused(let error, _, let status, _) = await flow.pollDevice(poll) else {
            Issue.record("a pending code delivered something")
            return
        }
        #expect(error == "authorization_pending" && status == 400)
        let facts = try #require(
            Self.facts(
                await flow.deviceConfirmation(
                    userCode: issued.userCode.lowercased(), client: "198.51.100.1", cookieHeaders: [])))
        #expect(facts.providerName == "Google" && facts.client == "203.0.113.9")
        #expect(facts.configuredScopes == ["openid"] && facts.requestedScopes == ["calendar"])
        #expect(facts.setCookie.contains("; SameSite=Strict") && facts.setCookie.contains("; Secure"))
        guard
            case .refused(let unknown, _, _, _) = await flow.pollDevice(
                ServiceSignInPickerTests.fields([
                    ("grant_type", DeviceAuthorization.grantType), ("device_code", "nope"),
                ]))
        else { return }
        #expect(unknown == "invalid_grant")
        guard
            case .refused(let grant, _, _, _) = await flow.pollDevice(
                ServiceSignInPickerTests.fields([("grant_type", "authorization_code"), ("device_code", "nope")]))
        else { return }
        #expect(grant == "unsupported_grant_type")
    }

    /// The confirmation page's facts of an answer that has them; nil for a code taken as decided.
    static func facts(_ answer: DeviceConfirmationAnswer) -> DeviceConfirmation? {
        guard case .confirm(let facts) = answer else { return nil }
        return facts
    }

    /// `customParameters` on a Google device request, with `extra` fields.
    static func asking(_ customParameters: String, _ extra: [(String, String)] = []) -> [URLFormField] {
        ServiceSignInPickerTests.fields(
            [
                ("providerId", "google.com"), ("resultChallenge", ServiceSignInPickerTests.challenge),
                ("customParameters", customParameters),
            ] + extra)
    }

    /// Finding 1 of issue 23: a device request may not ask the provider to show the person no screens (OpenID Connect
    /// Core §3.1.2.1 `prompt=none`, HTTP-API.md §3.9), however the value is spelled; other prompts are fine.
    @Test func aDeviceRequestForNoProviderScreensIsRefusedNamingPrompt() async throws {
        let flow = try Self.flow(store: MemorySessionStore())
        let refused = [
            #"{"prompt":"none"}"#, #"{"prompt":"login none"}"#, #"{"Prompt":"NONE"}"#, #"{"prompt":"none,consent"}"#,
            #"{"login_hint":"alice","prompt":"consent\tnone"}"#,
        ]
        for parameters in refused {
            for authType in AuthType.allCases {
                let error = await ServiceSignInPickerTests.refusal { () throws(APIError) in
                    _ = try await flow.issueDevice(
                        Self.asking(parameters, [("authType", authType.rawValue), ("idToken", "id.token.sig")]),
                        client: "203.0.113.9")
                }
                #expect(error?.code == .invalidRequest, "\(parameters) \(authType)")
                #expect(
                    error?.message.lowercased().contains("customparameters.prompt") == true,
                    "\(String(describing: error))")
            }
        }
        for parameters in [#"{"prompt":"login"}"#, #"{"prompt":"consent select_account"}"#, #"{"prompt":"nonempty"}"#] {
            _ = try await flow.issueDevice(Self.asking(parameters), client: "203.0.113.9")
        }
    }

    /// Findings 1 and 2 of issue 23: the confirmation carries the auth type, every custom parameter, and the
    /// provider's configured scopes apart from those the device added (HTTP-API.md §3.9).
    @Test func theConfirmationCarriesTheAuthTypeEveryParameterAndWhoChoseEachScope() async throws {
        let flow = try Self.flow(store: MemorySessionStore())
        let issued = try await flow.issueDevice(
            Self.asking(
                #"{"login_hint":"alice","hd":"<b>x</b>"}"#,
                [("authType", "linkViaRedirect"), ("idToken", "id.token.sig"), ("scopes", "calendar,openid")]),
            client: "203.0.113.9")
        let facts = try #require(
            Self.facts(
                await flow.deviceConfirmation(userCode: issued.userCode, client: "203.0.113.9", cookieHeaders: [])))
        #expect(facts.authType == .linkViaRedirect)
        #expect(
            facts.customParameters
                == ServiceSignInPickerTests.fields([("hd", "<b>x</b>"), ("login_hint", "alice")]))
        #expect(facts.configuredScopes == ["openid"] && facts.requestedScopes == ["calendar"])
        // OAuth 1.0a sends no scope, so none is listed, asked for or not.
        let twitter = try await flow.issueDevice(
            ServiceSignInPickerTests.fields([
                ("providerId", "twitter.com"), ("resultChallenge", ServiceSignInPickerTests.challenge),
                ("scopes", "calendar"),
            ]), client: "203.0.113.9")
        let twitterFacts = try #require(
            Self.facts(
                await flow.deviceConfirmation(userCode: twitter.userCode, client: "203.0.113.9", cookieHeaders: [])))
        #expect(twitterFacts.configuredScopes.isEmpty && twitterFacts.requestedScopes.isEmpty)
    }

    @Test func onlyTheOfferedProvidersAndAStartsParametersAreAccepted() async throws {
        let flow = try Self.flow(store: MemorySessionStore(), providers: ["twitter.com"])
        let cases: [([URLFormField], APIError.Code)] = [
            (Self.request, .invalidProvider),
            (ServiceSignInPickerTests.fields([("providerId", "twitter.com")]), .invalidRequest),
            (
                ServiceSignInPickerTests.fields([
                    ("providerId", "twitter.com"), ("resultChallenge", ServiceSignInPickerTests.challenge),
                    ("authType", "linkViaRedirect"),
                ]), .invalidRequest
            ),
            (
                ServiceSignInPickerTests.fields([
                    ("providerId", "twitter.com"), ("resultChallenge", ServiceSignInPickerTests.challenge),
                    ("customParameters", #"{"oauth_token":"x"}"#),
                ]), .reservedCustomParameter
            ),
        ]
        for (fields, expected) in cases {
            do throws(APIError) {
                _ = try await flow.issueDevice(fields, client: "203.0.113.9")
                Issue.record("issued for \(fields)")
            } catch {
                #expect(error.code == expected, "\(fields): \(error)")
            }
        }
        let issued = try await flow.issueDevice(
            ServiceSignInPickerTests.fields([
                ("providerId", "twitter.com"), ("resultChallenge", ServiceSignInPickerTests.challenge),
            ]), client: "203.0.113.9")
        #expect(DeviceAuthorization.normalizedUserCode(issued.userCode) != nil)
    }

    /// The code typed from `client` on the confirmation page: nil when the page is shown, else the refusal.
    static func enter(_ flow: SignInFlow, _ code: String, from client: String) async -> APIError? {
        do throws(APIError) {
            _ = try await flow.deviceConfirmation(userCode: code, client: client, cookieHeaders: [])
            return nil
        } catch {
            return error
        }
    }

    /// HTTP-API.md §3.9: wrong codes are counted per address in the store's 60-s window. After 10, every entry from that
    /// address is `429` with the window's remaining seconds, the right code too; right codes use no allowance; another
    /// address is not affected; and when the window closes the address may enter codes again.
    @Test func wrongCodesAreLimitedPerAddressInTheStoresWindow() async throws {
        let clock = TestClock.startingNow()
        let flow = try Self.flow(store: MemorySessionStore(now: clock.read), clock: clock)
        let userCode = try await flow.issueDevice(Self.request, client: "203.0.113.9").userCode
        for _ in 0..<15 { #expect(await Self.enter(flow, userCode, from: "203.0.113.5") == nil) }
        // A code with a vowel is never a user code (RFC 8628 §6.1), so always wrong.
        for _ in 0..<10 { #expect(await Self.enter(flow, "AAAA-AAAA", from: "203.0.113.5")?.code == .invalidRequest) }
        clock.advance(by: 20)
        let limited = await Self.enter(flow, userCode, from: "203.0.113.5")
        #expect(limited?.code == .tooManyRequests && limited?.status == 429 && limited?.retryAfterSeconds == 40)
        #expect(await Self.enter(flow, userCode, from: "203.0.113.6") == nil)
        clock.advance(by: 39.5)
        #expect(await Self.enter(flow, "AAAA-AAAA", from: "203.0.113.5")?.retryAfterSeconds == 1)
        clock.advance(by: 0.5)
        #expect(await Self.enter(flow, userCode, from: "203.0.113.5") == nil)
    }

    /// A store that cannot count answers as every store failure does (`503 unavailable`), and shows no page.
    @Test func aStoreThatCannotCountIsUnavailable() async throws {
        let store = CollidingStore(refusals: 0, countsFail: true)
        let flow = try Self.flow(store: store)
        let userCode = try await flow.issueDevice(Self.request, client: "203.0.113.9").userCode
        let refused = await Self.enter(flow, userCode, from: "203.0.113.5")
        #expect(refused?.code == .unavailable && refused?.status == 503)
        #expect(refused?.message.contains("redis") == false)
    }

    @Test func aUserCodeInUseIsDrawnAgain() async throws {
        let store = CollidingStore(refusals: 2)
        let issued = try await Self.flow(store: store).issueDevice(Self.request, client: "203.0.113.9")
        #expect(store.userCodeInserts.withLock { $0 } == 3)
        #expect(DeviceAuthorization.normalizedUserCode(issued.userCode) != nil)
    }

    @Test func aStoreThatKeepsRefusingIsUnavailable() async throws {
        let store = CollidingStore(refusals: 5)
        let flow = try Self.flow(store: store)
        do throws(APIError) {
            _ = try await flow.issueDevice(Self.request, client: "203.0.113.9")
            Issue.record("issued although the store refused every user code")
        } catch {
            #expect(error.code == .unavailable)
        }
        #expect(store.userCodeInserts.withLock { $0 } == 3)
    }
}
