import AuthHandlerHTTP
import Foundation
import TestSupport
import Testing

/// The picker's e-mail entry through the real binary (HTTP-API.md §3.6, issue 26 §1): its forms, their login-CSRF
/// defence, inline errors, and a sign-up, sign-in and reset that end in a result code the app redeems.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct EndToEndPickerEmailTests {
    static let password = "picker passphrase of alice"
    /// The daemon's backend: the accounts on `engine`, with a password budget above the tests' sign-ins.
    static func accounts(_ engine: AccountsDatabaseEngine) -> EndToEnd.Backend {
        .accounts(members: #""password": {"rateLimit": {"perMinute": 600, "burst": 50}}"#, engine: engine)
    }

    /// The picker's URL on `screen` with the app's redirect, challenge and an event id.
    static func pickerURL(_ e2e: EndToEnd, screen: String? = nil) -> String {
        var fields = [
            URLFormField(name: "redirectUrl", value: EndToEnd.appRedirect),
            URLFormField(name: "eventId", value: "e-email"),
            URLFormField(name: "resultChallenge", value: EndToEnd.appChallenge),
        ]
        if let screen { fields.append(URLFormField(name: "screen", value: screen)) }
        return e2e.daemonURL + "/__/auth/signin?" + FormURLEncoding.encode(fields)
    }

    /// The hidden fields of the page's e-mail form.
    static func hiddenFields(_ page: String) throws -> [URLFormField] {
        let regex = try NSRegularExpression(pattern: #"<input type="hidden" name="([^"]*)" value="([^"]*)">"#)
        return regex.matches(in: page, range: NSRange(page.startIndex..., in: page)).compactMap { match in
            guard let name = Range(match.range(at: 1), in: page), let value = Range(match.range(at: 2), in: page)
            else { return nil }
            return URLFormField(
                name: EndToEnd.unescape(String(page[name])), value: EndToEnd.unescape(String(page[value])))
        }
    }

    /// Opens the picker on `screen` in this browser and posts its form with `fields` added, as the page's own form
    /// (`Sec-Fetch-Site: same-origin`); `headers` replace the browser's.
    static func submit(
        _ e2e: EndToEnd, screen: String? = nil, _ fields: [(String, String)], headers: [String: String] = [:],
        replacing: [String: String] = [:]
    ) async throws -> OutboundResponse {
        let page = try await e2e.get(pickerURL(e2e, screen: screen))
        #expect(page.status == 200, "\(page.text)")
        var form = try hiddenFields(page.text).map { field in
            URLFormField(name: field.name, value: replacing[field.name] ?? field.value)
        }
        form += fields.map { URLFormField(name: $0.0, value: $0.1) }
        var fieldsOfHeaders: HTTPHeaders = [
            "Content-Type": "application/x-www-form-urlencoded", "Sec-Fetch-Site": "same-origin",
            "Origin": e2e.daemonURL,
        ]
        for (name, value) in headers { fieldsOfHeaders.set(name: name, value: value) }
        return try await e2e.send(
            OutboundRequest(
                method: "POST", url: e2e.daemonURL + "/__/auth/signin/email", headers: fieldsOfHeaders,
                body: Array(FormURLEncoding.encode(form).utf8)))
    }

    /// The app's query of a `303` to the app.
    static func appQuery(_ response: OutboundResponse) throws -> [URLFormField] {
        #expect(response.status == 303, "\(response.status) \(response.text)")
        let location = try #require(response.headers["Location"])
        #expect(location.hasPrefix(EndToEnd.appRedirect + "?"), "\(location)")
        return try FormURLEncoding.decode(String(location.split(separator: "?", maxSplits: 1).last ?? ""))
    }

    /// The inline error's code on a re-rendered form.
    static func inlineError(_ page: OutboundResponse) -> String? {
        EndToEnd.firstMatch(#"<p role="alert" id="email-error" class="next" data-code="([^"]*)">"#, in: page.text)
    }

    @Test(
        "the picker shows the e-mail entry with labels, autocomplete and a CSRF cookie; not without accounts",
        arguments: AccountsDatabaseEngine.allCases)
    func emailEntryShown(engine: AccountsDatabaseEngine) async throws {
        try await withEndToEnd(backend: Self.accounts(engine)) { e2e in
            let page = try await e2e.get(Self.pickerURL(e2e))
            #expect(page.status == 200)
            for markup in [
                #"<form method="post" action="signin/email" id="email-form">"#, #"<label for="email">"#,
                #"autocomplete="email""#, #"autocomplete="current-password""#, #"id="forgot-password""#,
                #"id="create-account""#, #"data-provider-id="google.com""#,
            ] {
                #expect(page.text.contains(markup), "\(markup) missing")
            }
            let cookie = try #require(
                page.headers.values(for: "Set-Cookie").first { $0.hasPrefix("auth_handler_csrf=") })
            #expect(
                cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax") && cookie.contains("Path=/__/auth/"))
            let signUp = try await e2e.get(Self.pickerURL(e2e, screen: "sign-up"))
            #expect(
                signUp.text.contains(#"autocomplete="new-password""#) && signUp.text.contains(#"autocomplete="name""#))
            #expect(signUp.text.contains(#"<input type="hidden" name="intent" value="sign-up">"#))
            #expect(!signUp.text.contains("data-provider-id"), "the sign-up screen is the form alone")
            #expect(page.headers.values(for: "Set-Cookie").count == 1)
            #expect(signUp.headers.values(for: "Set-Cookie").isEmpty, "the browser's cookie is kept")
            let badScreen = try await e2e.get(Self.pickerURL(e2e, screen: "lookup"), accept: "application/json")
            #expect(badScreen.errorCode == "invalid-request")
            let onlyEmail = try await e2e.get(Self.pickerURL(e2e) + "&providers=password")
            #expect(onlyEmail.status == 200 && !onlyEmail.text.contains("data-provider-id"))
            #expect(onlyEmail.text.contains(#"id="email-form""#))
            let link = try await e2e.get(
                Self.pickerURL(e2e) + "&providers=password&authType=linkViaRedirect", accept: "application/json")
            #expect(link.errorCode == "invalid-provider", "\(link.text)")
            let providersOnly = try await e2e.get(Self.pickerURL(e2e) + "&providers=google.com")
            #expect(!providersOnly.text.contains("email-form"), "providers= without password offers no e-mail entry")
        }
        try await withEndToEnd { e2e in
            let page = try await e2e.get(Self.pickerURL(e2e))
            #expect(page.status == 200)
            #expect(!page.text.contains("email-form") && page.headers.values(for: "Set-Cookie").isEmpty)
            let post = try await e2e.postForm(e2e.daemonURL + "/__/auth/signin/email", [])
            #expect(post.status == 404)
        }
    }

    @Test(
        "a form without this browser's CSRF token, or from another site, signs no one up",
        arguments: AccountsDatabaseEngine.allCases)
    func loginCSRFRefused(engine: AccountsDatabaseEngine) async throws {
        try await withEndToEnd(backend: Self.accounts(engine)) { e2e in
            let signUp = [("email", "mallory@example.com"), ("newPassword", Self.password)]
            let missing = try await Self.submit(e2e, screen: "sign-up", signUp, replacing: ["csrf": ""])
            #expect(missing.status == 400 && missing.text.contains("CSRF token"), "\(missing.text)")
            let wrong = try await Self.submit(
                e2e, screen: "sign-up", signUp, replacing: ["csrf": "AQ" + String(repeating: "x", count: 60)])
            #expect(wrong.status == 400 && wrong.text.contains("CSRF token"), "\(wrong.text)")
            // Another browser's page: its token is bound to its own cookie, not this browser's.
            let other = try await e2e.get(Self.pickerURL(e2e, screen: "sign-up"), freshBrowser: true)
            let otherToken = try #require(try Self.hiddenFields(other.text).first { $0.name == "csrf" }?.value)
            let foreign = try await Self.submit(e2e, screen: "sign-up", signUp, replacing: ["csrf": otherToken])
            #expect(foreign.status == 400 && foreign.text.contains("CSRF token"), "\(foreign.text)")
            let crossSite = try await Self.submit(
                e2e, screen: "sign-up", signUp, headers: ["Sec-Fetch-Site": "cross-site"])
            #expect(crossSite.status == 400 && crossSite.text.contains("sign-in page"), "\(crossSite.text)")
            let evilOrigin = try await e2e.send(
                OutboundRequest(
                    method: "POST", url: e2e.daemonURL + "/__/auth/signin/email",
                    headers: ["Content-Type": "application/x-www-form-urlencoded", "Origin": "https://evil.example"],
                    body: Array("intent=sign-up".utf8)))
            #expect(evilOrigin.status == 400, "\(evilOrigin.text)")
            // A start parameter the start would refuse is refused here too.
            let elsewhere = try await Self.submit(
                e2e, screen: "sign-up", signUp, replacing: ["redirectUrl": "https://evil.example/"])
            #expect(
                elsewhere.status == 400 && elsewhere.text.contains("unauthorized-redirect-url"), "\(elsewhere.text)")
            for refused in [missing, wrong, foreign, crossSite, evilOrigin, elsewhere] {
                #expect(refused.headers["Location"] == nil)
            }
            // None of them made the account.
            let signIn = try await e2e.passwordSignIn("mallory@example.com", Self.password)
            #expect(signIn.errorCode == "invalid-credential", "\(signIn.text)")
        }
    }

    @Test(
        "sign-up and sign-in end in a result the app redeems; errors come back inline; no secret in URLs or logs",
        arguments: AccountsDatabaseEngine.allCases)
    func signUpSignInRedeem(engine: AccountsDatabaseEngine) async throws {
        try await withEndToEnd(backend: Self.accounts(engine)) { e2e in
            let weak = try await Self.submit(
                e2e, screen: "sign-up",
                [("email", "alice@example.com"), ("newPassword", "short"), ("displayName", "Alice")])
            #expect(weak.status == 400 && Self.inlineError(weak) == "weak-password", "\(weak.text)")
            #expect(weak.text.contains(#"value="alice@example.com""#) && weak.text.contains(#"value="Alice""#))
            #expect(!weak.text.contains("short\""), "the password is never put back in the page")
            // The page a POST answered is one level deeper: its form and links lead to the same places.
            #expect(weak.text.contains(#"<form method="post" action="../signin/email" id="email-form">"#))
            #expect(weak.text.contains(#"href="../signin?"#))

            let signedUp = try await Self.submit(
                e2e, screen: "sign-up",
                [("email", "alice@example.com"), ("newPassword", Self.password), ("displayName", "Alice")])
            let query = try Self.appQuery(signedUp)
            #expect(query.first(named: "eventId") == "e-email")
            let code = try #require(query.first(named: "code"))
            let wrongVerifier = try await e2e.redeem(
                code: code, verifier: "not-the-verifier-0123456789-abcdefghijklmnopqrs")
            #expect(wrongVerifier.errorCode == "invalid-result-code")
            let redeemed = try await e2e.redeem(code: code)
            #expect(redeemed.status == 200, "\(redeemed.text)")
            #expect(redeemed.json?["providerId"]?.stringValue == "password")
            #expect(redeemed.json?["eventId"]?.stringValue == "e-email")
            let signIn = try #require(redeemed.json?["signIn"])
            let localID = try #require(signIn["localId"]?.stringValue)
            #expect(signIn["isNewUser"] == .bool(true))
            let refreshToken = try #require(signIn["refreshToken"]?.stringValue)
            let idToken = try #require(signIn["idToken"]?.stringValue)
            let claims = try EndToEndAccountsMailTests.claims(idToken)
            #expect(claims["firebase"]?["sign_in_provider"]?.stringValue == "password", "\(claims)")
            #expect(claims["name"]?.stringValue == "Alice")
            #expect(try await e2e.redeem(code: code).errorCode == "invalid-result-code", "a code is used once")
            #expect(try await e2e.refreshGrant(refreshToken).status == 200)

            let taken = try await Self.submit(
                e2e, screen: "sign-up", [("email", "alice@example.com"), ("newPassword", Self.password)])
            #expect(taken.status == 409 && Self.inlineError(taken) == "email-already-in-use", "\(taken.text)")
            let wrong = try await Self.submit(e2e, [("email", "alice@example.com"), ("password", "not her password")])
            #expect(wrong.status == 400 && Self.inlineError(wrong) == "invalid-credential", "\(wrong.text)")
            #expect(wrong.text.contains(#"value="alice@example.com""#) && !wrong.text.contains("not her password"))
            let unknown = try await Self.submit(
                e2e, [("email", "nobody@example.com"), ("password", "not her password")])
            #expect(Self.inlineError(unknown) == "invalid-credential", "the same answer for an unknown address")

            let signedIn = try await Self.submit(e2e, [("email", "alice@example.com"), ("password", Self.password)])
            let signInCode = try #require(try Self.appQuery(signedIn).first(named: "code"))
            #expect(signedIn.headers.values(for: "Set-Cookie").contains { $0.hasPrefix("auth_handler_device=") })
            let second = try await e2e.redeem(code: signInCode)
            #expect(second.json?["signIn"]?["localId"]?.stringValue == localID, "\(second.text)")
            #expect(second.json?["signIn"]?["isNewUser"] == .bool(false))

            let output = e2e.daemon.standardOutput + e2e.daemon.standardError
            for secret in [Self.password, code, signInCode, refreshToken, idToken] {
                #expect(!output.contains(secret), "the daemon's log holds a secret")
            }
            #expect(signedUp.headers["Location"]?.contains(Self.password) == false)
        }
    }

    @Test(
        "the user is read again at redemption: one disabled after the password was checked gets no session",
        arguments: AccountsDatabaseEngine.allCases)
    func disabledBeforeRedemption(engine: AccountsDatabaseEngine) async throws {
        try await withEndToEnd(backend: Self.accounts(engine)) { e2e in
            _ = try await e2e.passwordSignUp("dave@example.com", Self.password)
            let signedIn = try await Self.submit(e2e, [("email", "dave@example.com"), ("password", Self.password)])
            let code = try #require(try Self.appQuery(signedIn).first(named: "code"))
            let disabled = try await e2e.accounts(["disable", "dave@example.com", "--json"])
            #expect(disabled.status == 0, "\(disabled.standardError)")
            let redeemed = try await e2e.redeem(code: code)
            #expect(redeemed.status == 403 && redeemed.errorCode == "user-disabled", "\(redeemed.text)")
            #expect(
                try await e2e.redeem(code: code).errorCode == "invalid-result-code", "a definite refusal uses it up")
        }
    }

    @Test("too many wrong passwords: the form says how long to wait", arguments: AccountsDatabaseEngine.allCases)
    func throttleShown(engine: AccountsDatabaseEngine) async throws {
        try await withEndToEnd(backend: Self.accounts(engine)) { e2e in
            _ = try await e2e.passwordSignUp("bob@example.com", Self.password)
            var last: OutboundResponse?
            for _ in 0..<12 {
                last = try await Self.submit(e2e, [("email", "bob@example.com"), ("password", "wrong guess")])
                if last?.status == 429 { break }
            }
            let throttled = try #require(last)
            #expect(throttled.status == 429 && Self.inlineError(throttled) == "too-many-requests", "\(throttled.text)")
            let wait = try #require(throttled.headers["Retry-After"])
            #expect(throttled.text.contains("Wait \(wait) seconds"))
        }
    }

    @Test(
        "Forgot password: the same page for any address, the mail's link sets a password the picker signs in with",
        arguments: AccountsDatabaseEngine.allCases)
    func resetThroughThePicker(engine: AccountsDatabaseEngine) async throws {
        try await withMailingDaemon(engine: engine) { e2e, sink in
            _ = try await e2e.signUp("carol@example.com", Self.password)
            let unknown = try await Self.submit(e2e, screen: "reset", [("email", "nobody@example.com")])
            let known = try await Self.submit(e2e, screen: "reset", [("email", "carol@example.com")])
            #expect(unknown.status == 200 && known.status == 200)
            #expect(
                unknown.text.replacingOccurrences(of: "nobody@example.com", with: "X")
                    == known.text.replacingOccurrences(of: "carol@example.com", with: "X"))
            #expect(known.text.contains(#"id="reset-sent""#))
            let mail = try await sink.nextMail()
            #expect(mail.recipients == ["carol@example.com"])
            let link = try #require(EndToEndAccountsMailTests.actionLink(in: mail))
            let form = try await e2e.get(link)
            let fields = try #require(EndToEndAccountsMailTests.formFields(form.text))
            let newPassword = "carol's brand new passphrase"
            let done = try await e2e.postForm(
                e2e.daemonURL + "/__/auth/action", fields + [URLFormField(name: "newPassword", value: newPassword)],
                accept: nil)
            #expect(done.status == 200, "\(done.text)")
            let signedIn = try await Self.submit(e2e, [("email", "carol@example.com"), ("password", newPassword)])
            let code = try #require(try Self.appQuery(signedIn).first(named: "code"))
            #expect(try await e2e.redeem(code: code).status == 200)
        }
    }
}
