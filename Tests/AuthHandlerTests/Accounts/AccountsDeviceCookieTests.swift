import AuthHandlerCrypto
import AuthHandlerSystem
import Foundation
import TestSupport
import Testing

@testable import AuthHandlerAccounts

/// `DeviceCookie`: HMAC-SHA256-authenticated, bound to one e-mail, 90 days (OWASP's device-cookie defence).
@Suite struct AccountsDeviceCookieTests {
    let key = Array(repeating: UInt8(42), count: 32)
    let email = "alice@example.com"

    @Test("a cookie verifies for its e-mail, and not for another")
    func binding() throws {
        let cookies = DeviceCookie(key: key, now: TestClock().read)
        let value = try cookies.issue(email: email)
        #expect(cookies.verify(value, email: email) == .valid)
        #expect(cookies.verify(value, email: "bob@example.com") == .otherEmail)
        #expect(!value.contains("alice"))
        #expect(try cookies.issue(email: email) != value)
    }

    @Test("a cookie expires after 90 days")
    func expiry() throws {
        let clock = TestClock()
        let cookies = DeviceCookie(key: key, now: clock.read)
        let value = try cookies.issue(email: email)
        clock.advance(by: 90 * 24 * 3600 - 1)
        #expect(cookies.verify(value, email: email) == .valid)
        clock.advance(by: 1)
        #expect(cookies.verify(value, email: email) == .expired)
    }

    @Test("an altered cookie, one under another key, and one from the future are refused")
    func tampering() throws {
        let clock = TestClock()
        let cookies = DeviceCookie(key: key, now: clock.read)
        let value = try cookies.issue(email: email)
        let bytes = try #require(Base64.urlDecode(value))
        for index in [0, 5, 20, 40, bytes.count - 1] {
            var altered = bytes
            altered[index] ^= 1
            #expect(cookies.verify(Base64.urlEncode(altered), email: email) == .invalid)
        }
        let otherKey = DeviceCookie(key: Array(repeating: 1, count: 32), now: clock.read)
        #expect(otherKey.verify(value, email: email) == .invalid)
        #expect(cookies.verify(String(value.dropLast()), email: email) == .invalid)
        #expect(cookies.verify("", email: email) == .invalid)
        clock.advance(by: -3600)
        #expect(cookies.verify(value, email: email) == .invalid)
    }

    @Test("the Set-Cookie: HttpOnly, SameSite=Strict, Path=/__/auth/, Secure only over https; its value redacted")
    func header() throws {
        let cookies = DeviceCookie(key: key)
        let value = try cookies.issue(email: email)
        let secure = cookies.setCookie(value, secure: true)
        #expect(
            secure.fieldValue
                == "auth_handler_device=\(value); Max-Age=7776000; Path=/__/auth/; HttpOnly; Secure; SameSite=Strict")
        #expect(!cookies.setCookie(value, secure: false).fieldValue.contains("Secure"))
        #expect(!"\(secure)".contains(value))
        #expect("\(secure)".contains(Redaction.marker))
        #expect(!String(reflecting: secure).contains(value))
        var dumped = ""
        dump(secure, to: &dumped)
        #expect(!dumped.contains(value))
        #expect(!"\(cookies)".contains("42"))
    }
}
