import AuthHandlerHTTP
import Foundation
import TestSupport
import Testing

/// "Browsers never see a refresh token" (issue 25 §4, HTTP-API.md §3.10) through the real binary: the session cookie
/// is set, read and cleared only for this origin's own script, and its token never appears in a body.
@Suite(.serialized) struct EndToEndAccountsCookieTests {
    static let password = "cookie passphrase of alice"
    static let signInBody = #"{"email": "alice@example.com", "password": "\#(password)", "session": "cookie"}"#

    /// A JSON POST with exactly `headers` besides Content-Type and Accept, from a browser with no cookies.
    static func post(
        _ e2e: EndToEnd, _ path: String, _ body: String, _ headers: [String: String]
    ) async throws -> OutboundResponse {
        var fields: HTTPHeaders = ["Content-Type": "application/json", "Accept": "application/json"]
        for (name, value) in headers { fields.set(name: name, value: value) }
        return try await e2e.send(
            OutboundRequest(method: "POST", url: e2e.daemonURL + path, headers: fields, body: Array(body.utf8)),
            freshBrowser: true)
    }

    /// `POST /__/auth/token` in cookie mode with the given headers (the cookie among them).
    static func token(_ e2e: EndToEnd, _ headers: [String: String]) async throws -> OutboundResponse {
        var fields: HTTPHeaders = ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"]
        for (name, value) in headers { fields.set(name: name, value: value) }
        let body = "grant_type=refresh_token&session=cookie"
        return try await e2e.send(
            OutboundRequest(
                method: "POST", url: e2e.daemonURL + "/__/auth/token", headers: fields, body: Array(body.utf8)),
            freshBrowser: true)
    }

    /// The session cookie's `Set-Cookie`, if the answer has one.
    static func sessionCookie(_ response: OutboundResponse) -> String? {
        response.headers.values(for: "Set-Cookie").first { $0.hasPrefix("auth_handler_session=") }
    }

    @Test(
        "cookie mode needs X-Auth-Handler: 1 and no cross-site Sec-Fetch-Site; the token only in the cookie",
        arguments: AccountsDatabaseEngine.allCases)
    func sessionCookieOnlyForTheOriginsScript(engine: AccountsDatabaseEngine) async throws {
        try await engine.run { try await sessionCookieOnlyForTheOriginsScript() }
    }

    func sessionCookieOnlyForTheOriginsScript() async throws {
        try await withEndToEnd(backend: .accounts()) { e2e in
            _ = try await e2e.passwordSignUp("alice@example.com", Self.password)
            let signIn = "/__/auth/password/sign-in"

            // A cross-site form or fetch cannot send the header: refused, and no cookie set.
            let withoutHeader = try await Self.post(e2e, signIn, Self.signInBody, [:])
            #expect(withoutHeader.status == 400, "\(withoutHeader.text)")
            #expect(withoutHeader.errorCode == "invalid-request")
            #expect(Self.sessionCookie(withoutHeader) == nil)
            let crossSite = try await Self.post(
                e2e, signIn, Self.signInBody, ["X-Auth-Handler": "1", "Sec-Fetch-Site": "cross-site"])
            #expect(crossSite.status == 400, "\(crossSite.text)")
            #expect(crossSite.errorCode == "invalid-request")
            #expect(Self.sessionCookie(crossSite) == nil)
            let sameSite = try await Self.post(
                e2e, signIn, Self.signInBody, ["X-Auth-Handler": "1", "Sec-Fetch-Site": "same-site"])
            #expect(sameSite.status == 400, "a sibling subdomain's page is not this origin: \(sameSite.text)")
            // A browser without Fetch Metadata: its Origin is checked instead, against publicURL's.
            let otherOrigin = try await Self.post(
                e2e, signIn, Self.signInBody, ["X-Auth-Handler": "1", "Origin": "https://evil.example"])
            #expect(otherOrigin.status == 400, "another Origin without Sec-Fetch-Site: \(otherOrigin.text)")
            #expect(otherOrigin.errorCode == "invalid-request")
            #expect(Self.sessionCookie(otherOrigin) == nil)
            let fromOwnOrigin = try await Self.post(
                e2e, signIn, Self.signInBody, ["X-Auth-Handler": "1", "Origin": e2e.daemonURL])
            #expect(fromOwnOrigin.status == 200, "publicURL's Origin without Sec-Fetch-Site: \(fromOwnOrigin.text)")

            // The origin's own script: the token is in an HttpOnly, SameSite=Strict cookie scoped to /__/auth/.
            let signedIn = try await Self.post(
                e2e, signIn, Self.signInBody, ["X-Auth-Handler": "1", "Sec-Fetch-Site": "same-origin"])
            #expect(signedIn.status == 200, "\(signedIn.text)")
            #expect(signedIn.json?["refreshToken"] == nil, "the body carries the refresh token: \(signedIn.text)")
            #expect(signedIn.json?["idToken"]?.stringValue?.isEmpty == false)
            let setCookie = try #require(Self.sessionCookie(signedIn), "\(signedIn.headers)")
            let attributes = setCookie.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(attributes.contains("HttpOnly"))
            #expect(attributes.contains("SameSite=Strict"))
            #expect(attributes.contains("Path=/__/auth/"))
            #expect(!attributes.contains("Secure"), "publicURL is http here")
            let refreshToken = String(attributes[0].dropFirst("auth_handler_session=".count))
            #expect(refreshToken.count == 43)
            #expect(!signedIn.text.contains(refreshToken))
            let cookie = "auth_handler_session=\(refreshToken)"

            // /token with the cookie needs the header too.
            let tokenWithoutHeader = try await Self.token(e2e, ["Cookie": cookie])
            #expect(tokenWithoutHeader.status == 400, "\(tokenWithoutHeader.text)")
            #expect(Self.sessionCookie(tokenWithoutHeader) == nil)
            let tokenCrossSite = try await Self.token(
                e2e, ["Cookie": cookie, "X-Auth-Handler": "1", "Sec-Fetch-Site": "cross-site"])
            #expect(tokenCrossSite.status == 400, "\(tokenCrossSite.text)")
            let tokenOtherOrigin = try await Self.token(
                e2e, ["Cookie": cookie, "X-Auth-Handler": "1", "Origin": "null"])
            #expect(tokenOtherOrigin.status == 400, "an opaque Origin: \(tokenOtherOrigin.text)")
            #expect(Self.sessionCookie(tokenOtherOrigin) == nil)

            // Two session cookies (one tossed in by another page of the site), in either order: refused as such, not
            // answered with either token.
            let tossed = "auth_handler_session=\(String(repeating: "A", count: 43))"
            for pair in ["\(tossed); \(cookie)", "\(cookie); \(tossed)"] {
                let twoCookies = try await Self.token(e2e, ["Cookie": pair, "X-Auth-Handler": "1"])
                #expect(twoCookies.status == 400, "\(twoCookies.text)")
                #expect(twoCookies.errorCode == "invalid-request", "\(twoCookies.text)")
                #expect(Self.sessionCookie(twoCookies) == nil)
            }
            var split: HTTPHeaders = [
                "Content-Type": "application/x-www-form-urlencoded", "X-Auth-Handler": "1",
                "Cookie": "auth_handler_session=\(String(repeating: "B", count: 43))",
            ]
            split.add(name: "Cookie", value: cookie)
            let twoHeaders = try await e2e.send(
                OutboundRequest(
                    method: "POST", url: e2e.daemonURL + "/__/auth/token", headers: split,
                    body: Array("grant_type=refresh_token&session=cookie".utf8)),
                freshBrowser: true)
            #expect(twoHeaders.status == 400, "\(twoHeaders.text)")
            #expect(twoHeaders.errorCode == "invalid-request", "\(twoHeaders.text)")

            // The right request: a new ID token in the body, the rotated refresh token only in the cookie.
            let refreshed = try await Self.token(e2e, ["Cookie": cookie, "X-Auth-Handler": "1"])
            #expect(refreshed.status == 200, "\(refreshed.text)")
            #expect(refreshed.json?["refresh_token"] == nil, "\(refreshed.text)")
            #expect(refreshed.json?["id_token"]?.stringValue?.isEmpty == false)
            let rotated = try #require(Self.sessionCookie(refreshed))
            #expect(!rotated.contains(refreshToken))
            #expect(rotated.contains("HttpOnly") && rotated.contains("SameSite=Strict"))
            let current =
                "auth_handler_session="
                + String(
                    rotated.split(separator: ";")[0].dropFirst("auth_handler_session=".count))

            // Sign-out with the cookie needs the header too, as JSON and as a form; with it, the cookie is cleared
            // and its session ended.
            let signOutJSON = try await Self.post(
                e2e, "/__/auth/sign-out", #"{"session": "cookie"}"#, ["Cookie": current])
            #expect(signOutJSON.status == 400, "\(signOutJSON.text)")
            let signOutForm = try await e2e.send(
                OutboundRequest(
                    method: "POST", url: e2e.daemonURL + "/__/auth/sign-out",
                    headers: ["Content-Type": "application/x-www-form-urlencoded", "Cookie": current],
                    body: Array("session=cookie".utf8)),
                freshBrowser: true)
            #expect(signOutForm.status == 400, "\(signOutForm.text)")
            // Those refusals left the session alive.
            let stillLive = try await Self.token(e2e, ["Cookie": current, "X-Auth-Handler": "1"])
            #expect(stillLive.status == 200, "\(stillLive.text)")
            let newest = try #require(Self.sessionCookie(stillLive)).split(separator: ";")[0]
            let signedOut = try await Self.post(
                e2e, "/__/auth/sign-out", #"{"session": "cookie"}"#, ["Cookie": current, "X-Auth-Handler": "1"])
            #expect(signedOut.status == 200, "\(signedOut.text)")
            let cleared = try #require(Self.sessionCookie(signedOut))
            #expect(cleared.hasPrefix("auth_handler_session=;") && cleared.contains("Max-Age=0"), "\(cleared)")
            let ended = try await Self.token(e2e, ["Cookie": String(newest), "X-Auth-Handler": "1"])
            #expect(ended.status == 400 && ended.json?["error"]?.stringValue == "invalid_grant", "\(ended.text)")
        }
    }

    @Test(
        "a provider sign-in redeemed with session=cookie: refused cross-site, else the token only in the cookie",
        arguments: AccountsDatabaseEngine.allCases)
    func redemptionInCookieMode(engine: AccountsDatabaseEngine) async throws {
        try await engine.run { try await redemptionInCookieMode() }
    }

    func redemptionInCookieMode() async throws {
        try await withEndToEnd(backend: .accounts()) { e2e in
            func redeem(_ code: String, _ headers: [String: String]) async throws -> OutboundResponse {
                var fields: HTTPHeaders = [
                    "Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json",
                ]
                for (name, value) in headers { fields.set(name: name, value: value) }
                let body = FormURLEncoding.encode([
                    .init(name: "code", value: code), .init(name: "verifier", value: EndToEnd.appVerifier),
                    .init(name: "session", value: "cookie"),
                ])
                return try await e2e.send(
                    OutboundRequest(
                        method: "POST", url: e2e.daemonURL + "/__/auth/result", headers: fields,
                        body: Array(body.utf8)),
                    freshBrowser: true)
            }
            let walk = try await e2e.signIn("google.com", user: "alice")
            let code = try #require(walk.appQuery.first(named: "code"), "\(walk.appQuery)")
            let withoutHeader = try await redeem(code, [:])
            #expect(withoutHeader.status == 400, "\(withoutHeader.text)")
            #expect(Self.sessionCookie(withoutHeader) == nil)
            let crossSite = try await redeem(code, ["X-Auth-Handler": "1", "Sec-Fetch-Site": "cross-site"])
            #expect(crossSite.status == 400, "\(crossSite.text)")
            // The refusals left the code redeemable.
            let redeemed = try await redeem(code, ["X-Auth-Handler": "1", "Sec-Fetch-Site": "same-origin"])
            #expect(redeemed.status == 200, "\(redeemed.text)")
            #expect(redeemed.json?["signIn"]?["refreshToken"] == nil, "\(redeemed.text)")
            #expect(redeemed.json?["signIn"]?["idToken"]?.stringValue?.isEmpty == false)
            let setCookie = try #require(Self.sessionCookie(redeemed))
            #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict"))
            #expect(setCookie.contains("Path=/__/auth/"))
        }
    }

    @Test(
        "a session started in cookie mode is answered only in the cookie, even when its token comes in a body",
        arguments: AccountsDatabaseEngine.allCases)
    func cookieSessionNeverAnsweredInABody(engine: AccountsDatabaseEngine) async throws {
        try await engine.run { try await cookieSessionNeverAnsweredInABody() }
    }

    func cookieSessionNeverAnsweredInABody() async throws {
        try await withEndToEnd(backend: .accounts()) { e2e in
            _ = try await e2e.passwordSignUp("alice@example.com", Self.password)
            let signedIn = try await Self.post(
                e2e, "/__/auth/password/sign-in", Self.signInBody, ["X-Auth-Handler": "1"])
            let setCookie = try #require(Self.sessionCookie(signedIn), "\(signedIn.text)")
            let token = String(
                setCookie.split(separator: ";")[0].dropFirst("auth_handler_session=".count))
            // The same token as a native app would send it (form body, no session=cookie).
            // The session is bound to the cookie: refused, and nothing comes back in the body.
            let answer = try await e2e.refreshGrant(token)
            #expect(answer.status == 400, "\(answer.text)")
            #expect(answer.json?["error"]?.stringValue == "invalid_grant")
            #expect(answer.json?["refresh_token"] == nil && answer.json?["id_token"] == nil, "\(answer.text)")
        }
    }
}
