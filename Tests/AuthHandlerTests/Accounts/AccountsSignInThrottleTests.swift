import Foundation
import TestSupport
import Testing

@testable import AuthHandlerAccounts

/// `SignInThrottle`: per (e-mail, client) and per e-mail with device cookies (issue 25 §3; OWASP Authentication
/// Cheat Sheet).
@Suite struct AccountsSignInThrottleTests {
    let email = "alice@example.com"
    let attacker = ClientKey(resolved: "198.51.100.7")
    let owner = ClientKey(resolved: "192.0.2.1")
    let key = Array(repeating: UInt8(7), count: 32)

    func throttle(_ clock: TestClock, maxEntries: Int = 100_000) -> (SignInThrottle, DeviceCookie) {
        let cookies = DeviceCookie(key: key, now: clock.read)
        return (SignInThrottle(deviceCookies: cookies, maxEntries: maxEntries, now: clock.read), cookies)
    }

    @Test("10 failures of one pair within 15 minutes refuse that pair only, for a minute")
    func pairLock() {
        let clock = TestClock()
        let (throttle, _) = throttle(clock)
        for _ in 0..<9 {
            #expect(throttle.check(email: email, client: attacker, deviceCookie: nil) == .allowed)
            throttle.recordFailure(email: email, client: attacker)
            clock.advance(by: 30)
        }
        #expect(throttle.check(email: email, client: attacker, deviceCookie: nil) == .allowed)
        throttle.recordFailure(email: email, client: attacker)
        #expect(throttle.check(email: email, client: attacker, deviceCookie: nil) == .throttled(retryAfterSeconds: 60))
        #expect(throttle.check(email: email, client: owner, deviceCookie: nil) == .allowed)
        #expect(throttle.check(email: "bob@example.com", client: attacker, deviceCookie: nil) == .allowed)
    }

    @Test("each further failure doubles the wait, up to 15 minutes")
    func doubling() {
        let clock = TestClock()
        let (throttle, _) = throttle(clock)
        for _ in 0..<10 { throttle.recordFailure(email: email, client: attacker) }
        for expected in [120, 240, 480, 900, 900] {
            clock.advance(by: 900)
            #expect(throttle.check(email: email, client: attacker, deviceCookie: nil) == .allowed)
            throttle.recordFailure(email: email, client: attacker)
            #expect(
                throttle.check(email: email, client: attacker, deviceCookie: nil)
                    == .throttled(retryAfterSeconds: expected))
        }
    }

    @Test("failures spread over more than 15 minutes do not refuse")
    func window() {
        let clock = TestClock()
        let (throttle, _) = throttle(clock)
        for _ in 0..<30 {
            throttle.recordFailure(email: email, client: attacker)
            #expect(throttle.check(email: email, client: attacker, deviceCookie: nil) == .allowed)
            clock.advance(by: 100)
        }
    }

    @Test("a correct password after the wait works, and clears the pair")
    func successAfterWait() {
        let clock = TestClock()
        let (throttle, _) = throttle(clock)
        for _ in 0..<10 { throttle.recordFailure(email: email, client: owner) }
        #expect(throttle.check(email: email, client: owner, deviceCookie: nil) == .throttled(retryAfterSeconds: 60))
        clock.advance(by: 60)
        #expect(throttle.check(email: email, client: owner, deviceCookie: nil) == .allowed)
        throttle.recordSuccess(email: email, client: owner)
        throttle.recordFailure(email: email, client: owner)
        #expect(throttle.check(email: email, client: owner, deviceCookie: nil) == .allowed)
        #expect(throttle.entries.emails == 1)
    }

    /// 100 failures for `email` from 25 clients, 4 each, so that no pair is refused.
    func distributedFailures(_ throttle: SignInThrottle, count: Int = 100) {
        for index in 0..<count {
            throttle.recordFailure(email: email, client: ClientKey(resolved: "203.0.113.\(index / 4)"))
        }
    }

    @Test("after 100 consecutive failures, a client without a device cookie is refused, a growing wait")
    func emailLock() throws {
        let clock = TestClock()
        let (throttle, cookies) = throttle(clock)
        distributedFailures(throttle, count: 99)
        #expect(throttle.check(email: email, client: owner, deviceCookie: nil) == .allowed)
        distributedFailures(throttle, count: 1)
        #expect(throttle.check(email: email, client: owner, deviceCookie: nil) == .throttled(retryAfterSeconds: 60))
        let forBob = try cookies.issue(email: "bob@example.com")
        #expect(throttle.check(email: email, client: owner, deviceCookie: forBob) == .throttled(retryAfterSeconds: 60))
        #expect(
            throttle.check(email: email, client: owner, deviceCookie: "garbage") == .throttled(retryAfterSeconds: 60))
        #expect(throttle.check(email: "bob@example.com", client: owner, deviceCookie: nil) == .allowed)
        clock.advance(by: 60)
        #expect(throttle.check(email: email, client: owner, deviceCookie: nil) == .allowed)
        throttle.recordFailure(email: email, client: attacker)
        #expect(throttle.check(email: email, client: owner, deviceCookie: nil) == .throttled(retryAfterSeconds: 120))
    }

    @Test("a device-cookie client keeps working after 100 failures, and its success clears the count")
    func deviceCookieKeepsWorking() throws {
        let clock = TestClock()
        let (throttle, cookies) = throttle(clock)
        let cookie = try cookies.issue(email: email)
        clock.advance(by: 3600)
        distributedFailures(throttle, count: 150)
        #expect(throttle.check(email: email, client: owner, deviceCookie: nil) != .allowed)
        #expect(throttle.check(email: email, client: owner, deviceCookie: cookie) == .allowed)
        throttle.recordSuccess(email: email, client: owner)
        #expect(throttle.check(email: email, client: attacker, deviceCookie: nil) == .allowed)
    }

    @Test("an expired device cookie does not pass the e-mail rule")
    func expiredCookie() throws {
        let clock = TestClock()
        let (throttle, cookies) = throttle(clock)
        let cookie = try cookies.issue(email: email)
        clock.advance(by: DeviceCookie.defaultLifetime)
        distributedFailures(throttle)
        #expect(throttle.check(email: email, client: owner, deviceCookie: cookie) == .throttled(retryAfterSeconds: 60))
    }

    @Test("the consecutive count is forgotten a day after its last failure")
    func emailIdle() {
        let clock = TestClock()
        let (throttle, _) = throttle(clock)
        distributedFailures(throttle, count: 99)
        clock.advance(by: 24 * 3600)
        distributedFailures(throttle, count: 1)
        #expect(throttle.check(email: email, client: owner, deviceCookie: nil) == .allowed)
    }

    @Test("memory is bounded: past the cap the oldest records are forgotten")
    func bounded() {
        let clock = TestClock()
        let (throttle, _) = throttle(clock, maxEntries: 20)
        for index in 0..<200 {
            throttle.recordFailure(email: "user\(index)@example.com", client: attacker)
            clock.advance(by: 0.1)
        }
        #expect(throttle.entries.pairs <= 20)
        #expect(throttle.entries.emails <= 20)
        clock.advance(by: 24 * 3600)
        throttle.recordFailure(email: email, client: attacker)
        #expect(throttle.entries.pairs == 1)
        #expect(throttle.entries.emails == 1)
    }
}

extension AccountsSignInThrottleTests {
    @Test("through the protocol the endpoint uses")
    func throughProtocol() async {
        let clock = TestClock()
        let throttling: any SignInThrottling = throttle(clock).0
        for _ in 0..<10 { await throttling.recordFailure(email: email, client: attacker) }
        #expect(await throttling.check(email: email, client: attacker, deviceCookie: nil) != .allowed)
        await throttling.recordSuccess(email: email, client: attacker)
        #expect(await throttling.check(email: email, client: attacker, deviceCookie: nil) == .allowed)
    }
}
