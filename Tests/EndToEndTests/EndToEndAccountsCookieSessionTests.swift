import AuthHandlerHTTP
import Foundation
import TestSupport
import Testing

/// A session started in cookie mode lives only in the browser's `HttpOnly` cookie (HTTP-API.md §3.10): its refresh
/// token is never in a body, and presented in a body it is refused without being used up.
@Suite(.serialized) struct EndToEndAccountsCookieSessionTests {
    @Test(
        "a cookie-mode session's token is refused in a body and still refreshes through the cookie",
        arguments: AccountsDatabaseEngine.allCases)
    func cookieSessionIsRefreshedOnlyThroughTheCookie(engine: AccountsDatabaseEngine) async throws {
        try await engine.run { try await cookieSessionIsRefreshedOnlyThroughTheCookie() }
    }

    func cookieSessionIsRefreshedOnlyThroughTheCookie() async throws {
        try await withEndToEnd(backend: .accounts()) { e2e in
            let body = #"{"email": "tab@example.com", "password": "correct horse battery staple", "session": "cookie"}"#
            let signUp = try await e2e.postJSON("/__/auth/password/sign-up", body, script: true)
            #expect(signUp.status == 200, "\(signUp.text)")
            #expect(signUp.json?["refreshToken"] == nil, "the refresh token is only in the cookie")
            let cookie = try #require(e2e.cookieJar.withLock { $0["auth_handler_session"] })

            // The token, lifted out of the cookie jar, presented in a form body as a native app would.
            let lifted = try await e2e.postForm(
                e2e.daemonURL + "/__/auth/token",
                [.init(name: "grant_type", value: "refresh_token"), .init(name: "refresh_token", value: cookie)],
                freshBrowser: true)
            #expect(lifted.status == 400, "\(lifted.text)")
            #expect(lifted.json?["error"]?.stringValue == "invalid_grant")
            #expect(lifted.json?["refresh_token"] == nil && lifted.json?["id_token"] == nil)

            // The browser's own refresh through the cookie still works: nothing was used up.
            var headers: HTTPHeaders = [
                "Content-Type": "application/x-www-form-urlencoded", "X-Auth-Handler": "1",
                "Sec-Fetch-Site": "same-origin",
            ]
            headers.set(name: "Accept", value: "application/json")
            let refreshed = try await e2e.send(
                OutboundRequest(
                    method: "POST", url: e2e.daemonURL + "/__/auth/token", headers: headers,
                    body: Array("grant_type=refresh_token&session=cookie".utf8)))
            #expect(refreshed.status == 200, "\(refreshed.text)")
            #expect(refreshed.json?["refresh_token"] == nil)
            #expect(refreshed.json?["id_token"]?.stringValue != nil)
            let rotated = try #require(e2e.cookieJar.withLock { $0["auth_handler_session"] })
            #expect(rotated != cookie, "the cookie holds the successor")
        }
    }
}
