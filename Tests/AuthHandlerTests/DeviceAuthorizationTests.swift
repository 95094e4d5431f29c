import Foundation
import TestSupport
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP
@testable import auth_handler

/// The parts of device sign-in (HTTP-API.md §2.12, §3.9) that need no server: the config, the user codes, the poll
/// pacing, and `login`'s command line.
struct DeviceAuthorizationTests {
    @Test func theConfigIsOffByDefaultAndReadWithItsLimits() throws {
        let plain = try #require(try ConfigFixture.report(overriding: "{}").config)
        #expect(plain.deviceAuthorization == .default)
        #expect(plain.deviceAuthorization.enabled == false)
        #expect(plain.deviceAuthorization.codeLifetimeSeconds == 600)
        #expect(plain.deviceAuthorization.intervalSeconds == 5)
        let report = try ConfigFixture.report(
            overriding: """
                {"deviceAuthorization": {"enabled": true, "providers": ["github.com"], "codeLifetimeSeconds": 30,
                                         "intervalSeconds": 1}}
                """)
        #expect(report.problems.filter { $0.severity == .error }.isEmpty)
        #expect(report.warnings.map(\.path.description).contains("deviceAuthorization.enabled"))
        #expect(
            report.config?.deviceAuthorization
                == DeviceAuthorizationConfig(
                    enabled: true, providers: ["github.com"], codeLifetimeSeconds: 30, intervalSeconds: 1))
    }

    @Test(arguments: [
        (
            #"{"deviceAuthorization": {"codeLifetimeSeconds": 29}}"#,
            "deviceAuthorization.codeLifetimeSeconds: 29 is out of range"
        ),
        (#"{"deviceAuthorization": {"intervalSeconds": 0}}"#, "deviceAuthorization.intervalSeconds: 0 is out of range"),
        (
            #"{"deviceAuthorization": {"intervalSeconds": 61}}"#,
            "deviceAuthorization.intervalSeconds: 61 is out of range"
        ),
        (
            #"{"deviceAuthorization": {"providers": ["nope.example"]}}"#,
            "deviceAuthorization.providers[0]: \"nope.example\" is not a configured provider"
        ),
        (#"{"deviceAuthorization": {"enabled": "yes"}}"#, "deviceAuthorization.enabled: expected true or false"),
        (#"{"deviceAuthorization": {"interval": 5}}"#, "deviceAuthorization.interval: unknown key"),
    ])
    func badConfigIsNamed(document: String, expected: String) throws {
        let problems = try ConfigFixture.report(overriding: document).problems.map { "\($0.path): \($0.message)" }
        #expect(problems.contains { $0.hasPrefix(expected) }, "\(problems)")
    }

    @Test func userCodesUseTheConsonantAlphabetAndEntryIgnoresCaseAndDashes() throws {
        for _ in 0..<200 {
            let code = try DeviceAuthorization.makeUserCode()
            #expect(code.count == 8)
            #expect(code.allSatisfy { "BCDFGHJKLMNPQRSTVWXZ".contains($0) })
            let shown = DeviceAuthorization.displayed(code)
            #expect(shown.count == 9 && shown.dropFirst(4).first == "-")
            #expect(DeviceAuthorization.normalizedUserCode(shown.lowercased()) == code)
            #expect(DeviceAuthorization.normalizedUserCode(code) == code)
        }
        #expect(DeviceAuthorization.normalizedUserCode("ABCD-EFGH") == nil)  // vowels are not in the alphabet
        #expect(DeviceAuthorization.normalizedUserCode("BCDF-GHJ") == nil)
        #expect(DeviceAuthorization.normalizedUserCode("BCDF-GHJKL") == nil)
    }

    @Test func theResultCodeIsDerivedFromTheDeviceCodeAndTheUserCodeKeyIsKeyed() throws {
        let first = try DeviceAuthorization.resultCode(deviceCode: "device-code-one")
        #expect(first == (try DeviceAuthorization.resultCode(deviceCode: "device-code-one")))
        #expect(first != (try DeviceAuthorization.resultCode(deviceCode: "device-code-two")))
        #expect(!first.contains("device-code-one"))
        let ringA = try StateKeyRing.random()
        let ringB = try StateKeyRing.random()
        let keyA = try #require(DeviceAuthorization.requestKeys(userCode: "BCDFGHJK", keys: ringA).first)
        let keyB = try #require(DeviceAuthorization.requestKeys(userCode: "BCDFGHJK", keys: ringB).first)
        #expect(keyA != keyB)
        #expect(!keyA.contains("BCDFGHJK"))
    }

    @Test func theFirstPollIsNeverTooSoonAndEachTooSoonPollAddsFiveSeconds() {
        let pacing = DevicePacing()
        #expect(pacing.poll("a", interval: 5, lifetime: .seconds(60)) == .init(tooSoon: false, interval: 5))
        #expect(pacing.poll("a", interval: 5, lifetime: .seconds(60)) == .init(tooSoon: true, interval: 10))
        #expect(pacing.poll("a", interval: 5, lifetime: .seconds(60)) == .init(tooSoon: true, interval: 15))
        // Another code has its own pace.
        #expect(pacing.poll("b", interval: 1, lifetime: .seconds(60)) == .init(tooSoon: false, interval: 1))
        pacing.forget("a")
        #expect(pacing.poll("a", interval: 5, lifetime: .seconds(60)) == .init(tooSoon: false, interval: 5))
    }

    @Test func aPollAfterTheIntervalIsNotTooSoon() {
        let clock = TestClock()
        let pacing = DevicePacing(clock: clock)
        _ = pacing.poll("a", interval: 1, lifetime: .seconds(60))
        clock.advance(by: .milliseconds(999))
        #expect(pacing.poll("a", interval: 1, lifetime: .seconds(60)) == .init(tooSoon: true, interval: 6))
        clock.advance(by: .seconds(6))
        #expect(pacing.poll("a", interval: 1, lifetime: .seconds(60)) == .init(tooSoon: false, interval: 6))
    }

    /// A full table costs a poll no sweep: eviction looks at each code once, when it expires, however many polls come
    /// while the table is full (the pacing table swept on every poll was a denial of service).
    @Test func aFullTableIsNotSweptOnEveryPoll() {
        let clock = TestClock()
        let pacing = DevicePacing(clock: clock, trackedCodeLimit: 1000)
        for index in 0..<1000 {
            _ = pacing.poll("code-\(index)", interval: 5, lifetime: .seconds(index < 500 ? 100 : 1000))
        }
        #expect(pacing.trackedCodes == 1000)
        for round in 0..<500 {
            // A new code is not paced while the table is full; a tracked one is.
            #expect(pacing.poll("new-\(round)", interval: 5, lifetime: .seconds(600)).tooSoon == false)
            #expect(pacing.poll("new-\(round)", interval: 5, lifetime: .seconds(600)).tooSoon == false)
            #expect(pacing.poll("code-\(500 + round)", interval: 5, lifetime: .seconds(1000)).tooSoon)
        }
        #expect(pacing.evictionSteps == 0)
        #expect(pacing.trackedCodes == 1000)

        // The first 500 expire: the next poll drops each of them once, and a new code is paced again.
        clock.advance(by: .seconds(100))
        #expect(pacing.poll("late", interval: 5, lifetime: .seconds(600)) == .init(tooSoon: false, interval: 5))
        #expect(pacing.evictionSteps == 500)
        #expect(pacing.trackedCodes == 501)
        #expect(pacing.poll("late", interval: 5, lifetime: .seconds(600)) == .init(tooSoon: true, interval: 10))
        #expect(pacing.evictionSteps == 500)
    }

    /// A code forgotten and polled again is paced under its new record: the old record's expiry, still queued, does
    /// not drop it.
    @Test func aForgottenCodeTrackedAgainOutlivesItsOldExpiry() {
        let clock = TestClock()
        let pacing = DevicePacing(clock: clock)
        _ = pacing.poll("a", interval: 5, lifetime: .seconds(10))
        pacing.forget("a")
        clock.advance(by: .seconds(5))
        #expect(pacing.poll("a", interval: 5, lifetime: .seconds(10)) == .init(tooSoon: false, interval: 5))
        clock.advance(by: .seconds(1))
        #expect(pacing.poll("a", interval: 5, lifetime: .seconds(10)) == .init(tooSoon: true, interval: 10))
        // Past the first record's expiry (10 s), before the second's (15 s): still paced, 5 s after a 10-s interval.
        clock.advance(by: .seconds(5))
        #expect(pacing.poll("a", interval: 5, lifetime: .seconds(10)) == .init(tooSoon: true, interval: 15))
        clock.advance(by: .seconds(4))
        #expect(pacing.trackedCodes == 1)
        _ = pacing.poll("b", interval: 5, lifetime: .seconds(10))
        #expect(pacing.trackedCodes == 1)
    }

    @Test func loginParsesItsOptions() throws {
        let command = try CommandLineParser(environment: [:]).parse([
            "login", "--server", "https://auth.example.com", "--provider", "github.com", "--scope", "repo",
            "--param", "login_hint=alice", "--output", "/tmp/out.json",
        ])
        #expect(
            command
                == .login(
                    LoginOptions(
                        server: "https://auth.example.com", providerID: "github.com", scopes: ["repo"],
                        parameters: [OnceOptions.Parameter(name: "login_hint", value: "alice")],
                        outputPath: "/tmp/out.json")))
        #expect(throws: CommandLineUsageError.self) {
            try CommandLineParser(environment: [:]).parse(["login", "--provider", "github.com"])
        }
        #expect(throws: CommandLineUsageError.self) {
            try CommandLineParser(environment: [:]).parse(["login", "--server", "https://a", "--port", "1"])
        }
    }
}
