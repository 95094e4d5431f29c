import AuthHandlerCrypto
import AuthHandlerHTTP
import Foundation
import TestSupport
import Testing

/// The e-mail actions through the real binary and a real SMTP server (HTTP-API.md §3.10, docs/ACCOUNTS.md "E-mail
/// actions"): each mail is received, its link opened (a GET that uses nothing) and its form posted (which acts
/// once).
@Suite(.serialized) struct EndToEndAccountsMailTests {
    static let password = "correct horse battery staple"
    static let newPassword = "a brand new passphrase for tests"

    @Test(
        "a reset mail's link: GET shows the form without using the code, POST sets the password once, sessions end",
        arguments: AccountsDatabaseEngine.allCases)
    func passwordReset(engine: AccountsDatabaseEngine) async throws {
        try await engine.run { try await passwordReset() }
    }

    func passwordReset() async throws {
        try await withMailingDaemon { e2e, sink in
            let first = try await e2e.signUp("reset@example.com", Self.password)
            let second = try await e2e.signInTokens("reset@example.com", Self.password)
            let asked = try await e2e.postJSON(
                "/__/auth/password/reset", #"{"email": "Reset@Example.com", "continueUrl": "\#(EndToEnd.appRedirect)"}"#
            )
            #expect(asked.status == 200 && asked.text == "{}", "reset: \(asked.text)")
            let mail = try await sink.nextMail()
            #expect(mail.recipients == ["reset@example.com"])
            #expect(mail.header("Subject") == ["Reset your password"])
            let link = try #require(Self.actionLink(in: mail), "no link in: \(mail.body)")
            #expect(link.contains("mode=resetPassword"))

            // A mail scanner opens the link: the page, twice, and the code still works afterwards.
            for _ in 0..<2 {
                let page = try await e2e.get(link)
                #expect(page.status == 200, "page: \(page.text)")
                #expect(page.headers["Referrer-Policy"] == "no-referrer")
                #expect(page.headers["Cache-Control"] == "no-store")
                #expect(page.text.contains(#"name="newPassword""#))
            }
            let page = try await e2e.get(link)
            let fields = try #require(Self.formFields(page.text))

            // A form posted from another site is refused, and uses nothing.
            let crossSite = try await e2e.postAction(
                fields + [.init(name: "newPassword", value: Self.newPassword)], site: "cross-site")
            #expect(crossSite.status == 400, "cross-site: \(crossSite.text)")
            let crossOrigin = try await e2e.postAction(
                fields + [.init(name: "newPassword", value: Self.newPassword)], site: nil,
                origin: "https://evil.example")
            #expect(crossOrigin.status == 400, "cross-origin: \(crossOrigin.text)")
            // A password the policy refuses shows the form again; the code stays usable.
            let weak = try await e2e.postAction(fields + [.init(name: "newPassword", value: "short")])
            #expect(weak.status == 400)
            #expect(weak.text.contains(#"id="action-problem""#))

            let done = try await e2e.postAction(fields + [.init(name: "newPassword", value: Self.newPassword)])
            #expect(done.status == 200, "reset: \(done.text)")
            #expect(done.text.contains(#"id="action-continue" href="\#(EndToEnd.appRedirect)""#))
            let again = try await e2e.postAction(
                fields + [.init(name: "newPassword", value: "yet another long password")])
            #expect(again.status == 400)
            #expect(again.text.contains("invalid-action-code"))
            #expect(try await e2e.get(link).status == 400, "a used code's page")

            let old = try await e2e.postJSON(
                "/__/auth/password/sign-in", #"{"email": "reset@example.com", "password": "\#(Self.password)"}"#)
            #expect(old.json?["error"]?["code"]?.stringValue == "invalid-credential")
            let new = try await e2e.postJSON(
                "/__/auth/password/sign-in", #"{"email": "reset@example.com", "password": "\#(Self.newPassword)"}"#)
            #expect(new.status == 200, "new password: \(new.text)")
            for session in [first, second] {
                let refreshed = try await e2e.refresh(session.refreshToken)
                #expect(refreshed.json?["error"]?.stringValue == "invalid_grant", "refresh: \(refreshed.text)")
            }
            #expect(!e2e.daemon.standardError.contains(Self.code(of: link)), "the code reached the log")
            #expect(!e2e.daemon.standardError.contains("oobCode"))
        }
    }

    @Test(
        "a reset for an unknown address answers the same 200 {} and mails nothing",
        arguments: AccountsDatabaseEngine.allCases)
    func resetForUnknownAddress(engine: AccountsDatabaseEngine) async throws {
        try await engine.run { try await resetForUnknownAddress() }
    }

    func resetForUnknownAddress() async throws {
        try await withMailingDaemon { e2e, sink in
            _ = try await e2e.signUp("known@example.com", Self.password)
            let unknown = try await e2e.postJSON("/__/auth/password/reset", #"{"email": "nobody@example.com"}"#)
            let known = try await e2e.postJSON("/__/auth/password/reset", #"{"email": "known@example.com"}"#)
            #expect(unknown.status == 200 && known.status == 200)
            #expect(unknown.text == known.text && unknown.text == "{}")
            // The only mail is the known address's: the unknown one's request was made first.
            let mail = try await sink.nextMail()
            #expect(mail.recipients == ["known@example.com"])
            let blank = try await e2e.postJSON("/__/auth/password/reset", #"{"email": "not an address"}"#)
            #expect(blank.json?["error"]?["code"]?.stringValue == "invalid-email")
            let elsewhere = try await e2e.postJSON(
                "/__/auth/password/reset", #"{"email": "known@example.com", "continueUrl": "https://evil.example/"}"#)
            #expect(elsewhere.json?["error"]?["code"]?.stringValue == "unauthorized-redirect-url")
            #expect(try sink.messageNames().count == 1)
        }
    }

    @Test(
        "at most 3 requested mails per recipient and hour: the fourth reset is dropped and reported",
        arguments: AccountsDatabaseEngine.allCases)
    func resetMailLimit(engine: AccountsDatabaseEngine) async throws {
        try await engine.run { try await resetMailLimit() }
    }

    func resetMailLimit() async throws {
        try await withMailingDaemon { e2e, sink in
            _ = try await e2e.signUp("limited@example.com", Self.password)
            for _ in 0..<4 {
                let asked = try await e2e.postJSON("/__/auth/password/reset", #"{"email": "limited@example.com"}"#)
                #expect(asked.status == 200)
            }
            let dropped = await e2e.daemon.waitForErrorLine(startingWith: "level=warning event=accounts.mail")
            #expect(dropped?.contains("reset-password mail to a recipient at example.com dropped") == true)
            for _ in 0..<3 { _ = try await sink.nextMail() }
            #expect(try sink.messageNames().count == 3)
        }
    }

    @Test(
        "verify-email mails a link; following it makes the ID token's email_verified true",
        arguments: AccountsDatabaseEngine.allCases)
    func verifyEmail(engine: AccountsDatabaseEngine) async throws {
        try await engine.run { try await verifyEmail() }
    }

    func verifyEmail() async throws {
        try await withMailingDaemon { e2e, sink in
            let session = try await e2e.signUp("verify@example.com", Self.password)
            #expect(try Self.claims(session.idToken)["email_verified"]?.boolValue == false)
            let asked = try await e2e.postJSON("/__/auth/user/verify-email", "{}", bearer: session.idToken)
            #expect(asked.json?["sent"]?.boolValue == true, "verify-email: \(asked.text)")
            let mail = try await sink.nextMail()
            #expect(mail.recipients == ["verify@example.com"])
            let link = try #require(Self.actionLink(in: mail))
            let page = try await e2e.get(link)
            #expect(page.status == 200 && page.text.contains(#"id="action-confirm""#))
            let fields = try #require(Self.formFields(page.text))
            let still = try await e2e.refresh(session.refreshToken)
            let stillToken = try #require(still.json?["id_token"]?.stringValue)
            #expect(try Self.claims(stillToken)["email_verified"]?.boolValue == false, "a GET verified the address")
            // A browser without Fetch Metadata: its Origin is publicURL's.
            let done = try await e2e.postAction(fields, site: nil, origin: e2e.daemonURL)
            #expect(done.status == 200, "verify: \(done.text)")
            #expect(try await e2e.postAction(fields).status == 400)
            let signIn = try await e2e.signInTokens("verify@example.com", Self.password)
            let refreshed = try await e2e.refresh(signIn.refreshToken)
            let idToken = try #require(refreshed.json?["id_token"]?.stringValue)
            #expect(try Self.claims(idToken)["email_verified"]?.boolValue == true)
            let again = try await e2e.postJSON("/__/auth/user/verify-email", "", bearer: idToken)
            #expect(again.json?["sent"]?.boolValue == false)
        }
    }

    @Test(
        "change of address: confirmed by the new one; the old one gets a recovery link that restores it and ends every session",
        arguments: AccountsDatabaseEngine.allCases
    )
    func changeAndRecoverEmail(engine: AccountsDatabaseEngine) async throws {
        try await engine.run { try await changeAndRecoverEmail() }
    }

    func changeAndRecoverEmail() async throws {
        try await withMailingDaemon { e2e, sink in
            let session = try await e2e.signUp("old@example.com", Self.password)
            try await e2e.verify(session.idToken, sink: sink)
            let other = try await e2e.signInTokens("old@example.com", Self.password)
            _ = try await e2e.signUp("taken@example.com", Self.password)
            let conflict = try await e2e.postJSON(
                "/__/auth/user/email", #"{"email": "taken@example.com"}"#, bearer: other.idToken)
            #expect(conflict.status == 409 && conflict.json?["error"]?["code"]?.stringValue == "email-already-in-use")

            let asked = try await e2e.postJSON(
                "/__/auth/user/email", #"{"email": "new@example.com"}"#, bearer: other.idToken)
            #expect(asked.json?["sent"]?.boolValue == true, "user/email: \(asked.text)")
            let confirmation = try await sink.nextMail()
            #expect(confirmation.recipients == ["new@example.com"])
            let confirmLink = try #require(Self.actionLink(in: confirmation))
            #expect(confirmLink.contains("mode=verifyAndChangeEmail"))
            // Nothing changes before the new address confirms.
            let before = try await e2e.postJSON(
                "/__/auth/password/sign-in", #"{"email": "new@example.com", "password": "\#(Self.password)"}"#)
            #expect(before.status == 400)
            // A code waiting to be used is in the file only as its digest: neither its text nor its bytes.
            let pending = Self.code(of: confirmLink)
            let stored = try await e2e.accountsDatabaseBytes()
            #expect(!stored.containsText(pending), "an e-mail action code is in the accounts database")
            if let raw = Base64.urlDecode(pending) { #expect(!stored.containsBytes(raw)) }
            #expect(stored.containsBytes(try SHA256.hash(Array(pending.utf8))), "the search looked in the wrong file")
            let page = try await e2e.get(confirmLink)
            #expect(page.status == 200 && page.text.contains("new@example.com"))
            let confirmed = try await e2e.postAction(try #require(Self.formFields(page.text)))
            #expect(confirmed.status == 200, "confirm: \(confirmed.text)")
            let moved = try await e2e.signInTokens("new@example.com", Self.password)

            let notice = try await sink.nextMail()
            #expect(notice.recipients == ["old@example.com"])
            #expect(notice.header("Subject") == ["Your e-mail address was changed"])
            let recoverLink = try #require(Self.actionLink(in: notice))
            #expect(recoverLink.contains("mode=recoverEmail"))
            let recoverPage = try await e2e.get(recoverLink)
            #expect(recoverPage.status == 200, "recover page: \(recoverPage.text)")
            let recoverFields = try #require(Self.formFields(recoverPage.text))
            let recovered = try await e2e.postAction(recoverFields)
            #expect(recovered.status == 200, "recover: \(recovered.text)")
            #expect(try await e2e.postAction(recoverFields).status == 400)

            for tokens in [session, other, moved] {
                let refreshed = try await e2e.refresh(tokens.refreshToken)
                #expect(refreshed.json?["error"]?.stringValue == "invalid_grant", "refresh: \(refreshed.text)")
                let user = try await e2e.send(
                    OutboundRequest(
                        url: e2e.daemonURL + "/__/auth/user", headers: ["Authorization": "Bearer " + tokens.idToken]))
                #expect(user.status == 401, "an ID token of an ended session: \(user.text)")
            }
            let back = try await e2e.postJSON(
                "/__/auth/password/sign-in", #"{"email": "old@example.com", "password": "\#(Self.password)"}"#)
            #expect(back.status == 200, "old address: \(back.text)")
            let gone = try await e2e.postJSON(
                "/__/auth/password/sign-in", #"{"email": "new@example.com", "password": "\#(Self.password)"}"#)
            #expect(gone.status == 400)
            let log = e2e.daemon.standardError
            for link in [confirmLink, recoverLink] { #expect(!log.contains(Self.code(of: link))) }
        }
    }

    @Test(
        "an account whose address was never verified cannot change it: 403 email-not-verified",
        arguments: AccountsDatabaseEngine.allCases)
    func changeEmailNeedsVerifiedAddress(engine: AccountsDatabaseEngine) async throws {
        try await engine.run { try await changeEmailNeedsVerifiedAddress() }
    }

    func changeEmailNeedsVerifiedAddress() async throws {
        try await withMailingDaemon { e2e, sink in
            let session = try await e2e.signUp("unverified@example.com", Self.password)
            let refused = try await e2e.postJSON(
                "/__/auth/user/email", #"{"email": "elsewhere@example.com"}"#, bearer: session.idToken)
            #expect(refused.status == 403, "user/email: \(refused.text)")
            #expect(refused.json?["error"]?["code"]?.stringValue == "email-not-verified")
            #expect(try sink.messageNames().isEmpty)
        }
    }

    @Test(
        "change of password: recent sign-in, policy, other sessions end and the caller gets fresh tokens; reauth",
        arguments: AccountsDatabaseEngine.allCases)
    func changePasswordAndReauthenticate(engine: AccountsDatabaseEngine) async throws {
        try await engine.run { try await changePasswordAndReauthenticate() }
    }

    func changePasswordAndReauthenticate() async throws {
        try await withMailingDaemon { e2e, _ in
            let session = try await e2e.signUp("change@example.com", Self.password)
            let other = try await e2e.signInTokens("change@example.com", Self.password)
            let weak = try await e2e.postJSON(
                "/__/auth/user/password", #"{"password": "short"}"#, bearer: session.idToken)
            #expect(weak.json?["error"]?["code"]?.stringValue == "weak-password")
            let wrong = try await e2e.postJSON(
                "/__/auth/password/reauth", #"{"password": "not the password at all"}"#, bearer: session.idToken)
            #expect(wrong.json?["error"]?["code"]?.stringValue == "invalid-credential")
            let reauth = try await e2e.postJSON(
                "/__/auth/password/reauth", #"{"password": "\#(Self.password)"}"#, bearer: session.idToken)
            #expect(reauth.status == 200 && reauth.json?["idToken"]?.stringValue != nil, "reauth: \(reauth.text)")

            let changed = try await e2e.postJSON(
                "/__/auth/user/password", #"{"password": "\#(Self.newPassword)"}"#, bearer: session.idToken)
            #expect(changed.status == 200, "change: \(changed.text)")
            let fresh = try #require(changed.json?["refreshToken"]?.stringValue)
            #expect(changed.json?["localId"]?.stringValue == session.localID)
            #expect(try await e2e.refresh(fresh).status == 200)
            for tokens in [session, other] {
                #expect(try await e2e.refresh(tokens.refreshToken).json?["error"]?.stringValue == "invalid_grant")
            }
            let new = try await e2e.postJSON(
                "/__/auth/password/sign-in", #"{"email": "change@example.com", "password": "\#(Self.newPassword)"}"#)
            #expect(new.status == 200)
        }
    }

    @Test(
        "a change of password in cookie mode: the new session's refresh token only in the session cookie",
        arguments: AccountsDatabaseEngine.allCases)
    func changePasswordInCookieMode(engine: AccountsDatabaseEngine) async throws {
        try await engine.run { try await changePasswordInCookieMode() }
    }

    func changePasswordInCookieMode() async throws {
        try await withMailingDaemon { e2e, _ in
            _ = try await e2e.signUp("cookie@example.com", Self.password)
            let signIn = try await e2e.postJSON(
                "/__/auth/password/sign-in",
                #"{"email": "cookie@example.com", "password": "\#(Self.password)", "session": "cookie"}"#, script: true)
            let idToken = try #require(signIn.json?["idToken"]?.stringValue, "sign-in: \(signIn.text)")
            let before = try #require(e2e.cookieJar.withLock { $0["auth_handler_session"] })
            let withoutHeader = try await e2e.postJSON(
                "/__/auth/user/password", #"{"password": "\#(Self.newPassword)", "session": "cookie"}"#, bearer: idToken
            )
            #expect(withoutHeader.json?["error"]?["code"]?.stringValue == "invalid-request")
            let changed = try await e2e.postJSON(
                "/__/auth/user/password", #"{"password": "\#(Self.newPassword)", "session": "cookie"}"#,
                bearer: idToken, script: true)
            #expect(changed.status == 200, "change: \(changed.text)")
            #expect(changed.json?["refreshToken"] == nil && changed.json?["idToken"]?.stringValue != nil)
            let after = try #require(e2e.cookieJar.withLock { $0["auth_handler_session"] })
            #expect(after != before)
            #expect(try await e2e.refresh(before).json?["error"]?.stringValue == "invalid_grant")
            // The new session is bound to the cookie: refused in a body, refreshed through the cookie.
            #expect(try await e2e.refresh(after).json?["error"]?.stringValue == "invalid_grant")
            #expect(try await e2e.refreshWithCookie().status == 200)
        }
    }

    @Test(
        "without backend.email the mail-sending endpoints answer 403 operation-not-allowed naming it",
        arguments: AccountsDatabaseEngine.allCases)
    func withoutMail(engine: AccountsDatabaseEngine) async throws {
        try await engine.run { try await withoutMail() }
    }

    func withoutMail() async throws {
        try await withEndToEnd(backend: .accounts()) { e2e in
            let session = try await e2e.signUp("nomail@example.com", Self.password)
            let reset = try await e2e.postJSON("/__/auth/password/reset", #"{"email": "nomail@example.com"}"#)
            #expect(reset.status == 403)
            #expect(reset.json?["error"]?["code"]?.stringValue == "operation-not-allowed")
            #expect(reset.json?["error"]?["message"]?.stringValue?.contains("backend.email") == true)
            let verify = try await e2e.postJSON("/__/auth/user/verify-email", "{}", bearer: session.idToken)
            #expect(verify.status == 403)
        }
    }

    // MARK: Helpers

    /// The action link of a mail's body.
    static func actionLink(in mail: ReceivedMail) -> String? {
        EndToEnd.firstMatch(#"(http://[^\s]+/__/auth/action\?[^\s]+)"#, in: mail.body)
    }

    /// The `oobCode` of a link.
    static func code(of link: String) -> String {
        EndToEnd.firstMatch(#"oobCode=([A-Za-z0-9_-]+)"#, in: link) ?? link
    }

    /// The hidden fields of an action page's form.
    static func formFields(_ page: String) -> [URLFormField]? {
        guard page.contains(#"<form method="post" action="action">"#) else { return nil }
        var fields: [URLFormField] = []
        for name in ["mode", "oobCode", "continueUrl"] {
            if let value = EndToEnd.firstMatch(#"type="hidden" name="\#(name)" value="([^"]*)""#, in: page) {
                fields.append(URLFormField(name: name, value: EndToEnd.unescape(value)))
            }
        }
        return fields.count >= 2 ? fields : nil
    }

    /// The claims of an ID token, read without checking it.
    static func claims(_ token: String) throws -> JSONValue {
        let parts = token.split(separator: ".")
        try #require(parts.count == 3)
        let payload = try #require(Base64.urlDecode(String(parts[1])))
        return try #require(JSONValue.parse(payload))
    }
}

/// A session's tokens, as the accounts answer them.
struct AccountsTokens {
    var localID: String
    var idToken: String
    var refreshToken: String
}

/// Runs `body` with an SMTP server and a daemon whose accounts send their mail to it.
func withMailingDaemon<T>(
    engine: AccountsDatabaseEngine = .current, _ body: (EndToEnd, SMTPSink) async throws -> T
) async throws -> T {
    let sink = try await SMTPSink.start()
    return try await withCleanup({ await sink.stop() }) {
        // A budget of hashes that a test's dozen sign-ins from one address stay within (the default bursts 5).
        let members =
            #""email": {"from": "App <no-reply@example.com>", "smtp": {"url": "\#(sink.url)"}}, "#
            + #""password": {"rateLimit": {"perMinute": 600, "burst": 50}}"#
        return try await withEndToEnd(backend: .accounts(members: members, engine: engine)) { e2e in
            try await body(e2e, sink)
        }
    }
}

extension EndToEnd {
    func signUp(_ email: String, _ password: String) async throws -> AccountsTokens {
        try tokens(
            try await postJSON(
                "/__/auth/password/sign-up", #"{"email": "\#(email)", "password": "\#(password)"}"#))
    }

    func signInTokens(_ email: String, _ password: String) async throws -> AccountsTokens {
        try tokens(
            try await postJSON(
                "/__/auth/password/sign-in", #"{"email": "\#(email)", "password": "\#(password)"}"#))
    }

    private func tokens(_ response: OutboundResponse) throws -> AccountsTokens {
        let failure = "\(response.status) \(response.text)"
        return AccountsTokens(
            localID: try #require(response.json?["localId"]?.stringValue, "\(failure)"),
            idToken: try #require(response.json?["idToken"]?.stringValue, "\(failure)"),
            refreshToken: try #require(response.json?["refreshToken"]?.stringValue, "\(failure)"))
    }

    /// `POST /__/auth/token` in cookie mode, as the browser module sends it.
    func refreshWithCookie() async throws -> OutboundResponse {
        let headers: HTTPHeaders = [
            "Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json", "X-Auth-Handler": "1",
            "Sec-Fetch-Site": "same-origin",
        ]
        return try await send(
            OutboundRequest(
                method: "POST", url: daemonURL + "/__/auth/token", headers: headers,
                body: Array("grant_type=refresh_token&session=cookie".utf8)))
    }

    func refresh(_ refreshToken: String) async throws -> OutboundResponse {
        try await postForm(
            daemonURL + "/__/auth/token",
            [.init(name: "grant_type", value: "refresh_token"), .init(name: "refresh_token", value: refreshToken)])
    }

    /// Posts the action page's form as the page's own browser would (`Sec-Fetch-Site`, and `Origin` when given),
    /// asking for a page.
    func postAction(_ fields: [URLFormField], site: String? = "same-origin", origin: String? = nil)
        async throws -> OutboundResponse
    {
        var headers: HTTPHeaders = ["Content-Type": "application/x-www-form-urlencoded", "Accept": "text/html"]
        if let site { headers.set(name: "Sec-Fetch-Site", value: site) }
        if let origin { headers.set(name: "Origin", value: origin) }
        return try await send(
            OutboundRequest(
                method: "POST", url: daemonURL + "/__/auth/action", headers: headers,
                body: Array(FormURLEncoding.encode(fields).utf8)))
    }

    /// Verifies the address of the account `idToken` is for, through the mail.
    func verify(_ idToken: String, sink: SMTPSink) async throws {
        let asked = try await postJSON("/__/auth/user/verify-email", "{}", bearer: idToken)
        try #require(asked.json?["sent"]?.boolValue == true, "verify-email: \(asked.text)")
        let mail = try await sink.nextMail()
        let link = try #require(EndToEndAccountsMailTests.actionLink(in: mail))
        let page = try await get(link)
        let done = try await postAction(try #require(EndToEndAccountsMailTests.formFields(page.text)))
        try #require(done.status == 200, "verify: \(done.text)")
    }
}
