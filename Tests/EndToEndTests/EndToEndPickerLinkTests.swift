import AuthHandlerHTTP
import Foundation
import TestSupport
import Testing

/// Provider sign-ins through the picker with backend `accounts` (HTTP-API.md §3.6, issue 26 §1): the picker redeems
/// the provider's result itself, and an account-exists answer becomes its page, which links the identity after the
/// user signs in with the account's password; the app gets one result.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct EndToEndPickerLinkTests {
    static let password = "picker link passphrase of alice"

    /// The picker's Google button for `user` (the fake IdP approves the login hint), resolved as a browser resolves it.
    static func googleButton(_ e2e: EndToEnd, user: String) async throws -> String {
        let url =
            EndToEndPickerEmailTests.pickerURL(e2e) + "&"
            + FormURLEncoding.encode([URLFormField(name: "customParameters", value: #"{"login_hint":"\#(user)"}"#)])
        let page = try await e2e.get(url)
        let links = try EndToEndPickerTests.links(page.text, base: url)
        let google = try #require(links.first { $0.id == "google.com" })
        #expect(
            google.url.hasPrefix(e2e.daemonURL + "/__/auth/signin/provider?providerId=google.com&"), "\(google.url)")
        return google.url
    }

    /// The account-exists page's e-mail form, posted as the page's own with alice's address and `password`.
    static func post(_ e2e: EndToEnd, _ form: [URLFormField], password: String) async throws -> OutboundResponse {
        let fields =
            form + [.init(name: "email", value: "alice@example.com"), .init(name: "password", value: password)]
        return try await e2e.send(
            OutboundRequest(
                method: "POST", url: e2e.daemonURL + "/__/auth/signin/email",
                headers: ["Content-Type": "application/x-www-form-urlencoded", "Sec-Fetch-Site": "same-origin"],
                body: Array(FormURLEncoding.encode(fields).utf8)))
    }

    @Test(
        "a new Google user through the picker: one result for the app, no session left from the picker's redemption",
        arguments: AccountsDatabaseEngine.allCases)
    func providerSignInThroughThePicker(engine: AccountsDatabaseEngine) async throws {
        try await withEndToEnd(backend: .accounts(engine: engine)) { e2e in
            // Without the picker's cookie, a code at the return path redeems nothing; a start is checked as the picker's.
            let stray = try await e2e.get(
                e2e.daemonURL + "/__/auth/signin/return?code=abc", accept: "application/json", freshBrowser: true)
            #expect(stray.status == 400 && stray.errorCode == "invalid-state", "\(stray.text)")
            let elsewhere = try await e2e.get(
                e2e.daemonURL
                    + "/__/auth/signin/provider?providerId=google.com&redirectUrl=https%3A%2F%2Fevil.example%2F",
                accept: "application/json", freshBrowser: true)
            #expect(elsewhere.errorCode == "unauthorized-redirect-url", "\(elsewhere.text)")
            #expect(elsewhere.headers.values(for: "Set-Cookie").isEmpty)
            let walk = try await e2e.walk(from: try await Self.googleButton(e2e, user: "bob"))
            #expect(
                walk.handlerResponses.contains { $0.headers["Location"]?.contains("/__/auth/signin/return?") == true })
            let code = try #require(walk.appQuery.first(named: "code"), "\(walk.appQuery)")
            #expect(walk.appQuery.first(named: "eventId") == "e-email")
            let redeemed = try await e2e.redeem(code: code)
            #expect(redeemed.status == 200, "\(redeemed.text)")
            #expect(redeemed.json?["providerId"]?.stringValue == "google.com")
            #expect(redeemed.json?["signIn"]?["isNewUser"] == .bool(true))
            let idToken = try #require(redeemed.json?["signIn"]?["idToken"]?.stringValue)
            let user = try await e2e.getUser(idToken)
            #expect(user?["email"]?.stringValue == "bob@example.com", "\(String(describing: user))")
            // The session of the picker's own redemption was ended: the app's is the only live one.
            let localID = try #require(user?["localId"]?.stringValue)
            let show = try await e2e.accounts(["show", localID, "--json"])
            #expect(
                show.jsonLines?.first?["liveSessions"]?.numberValue == 1,
                "exit \(show.status): \(show.standardOutput) \(show.standardError)")
            let output = e2e.daemon.standardOutput + e2e.daemon.standardError
            for secret in [code, idToken] + walk.handlerResponses.compactMap({ $0.headers["Location"] }) {
                #expect(!output.contains(secret), "the daemon's log holds a code, token or a Location")
            }
        }
    }

    @Test(
        "account exists: the picker's page, a password sign-in, the identity linked, one result",
        arguments: AccountsDatabaseEngine.allCases)
    func accountExistsLinkedThroughThePicker(engine: AccountsDatabaseEngine) async throws {
        try await withEndToEnd(backend: .accounts(engine: engine)) { e2e in
            let signUp = try await e2e.passwordSignUp("alice@example.com", Self.password)
            try await e2e.markEmailVerified("alice@example.com")
            let localID = try #require(signUp["localId"]?.stringValue)
            let walk = try await e2e.walk(from: try await Self.googleButton(e2e, user: "alice"))
            #expect(walk.appRedirect == nil, "the app got a result before the link: \(walk.appQuery)")
            let page = try #require(walk.handlerResponses.last)
            #expect(page.status == 200, "\(page.text)")
            #expect(
                page.text.contains(
                    "You already have an account with alice@example.com — sign in with your password to link"),
                "\(page.text)")
            #expect(
                page.text.contains(
                    #"id="email" name="email" type="email" autocomplete="email" maxlength="1024" required value="alice@example.com""#
                ))
            let held = try #require(
                page.headers.values(for: "Set-Cookie").first { $0.hasPrefix("auth_handler_picker=") })
            #expect(
                held.contains("HttpOnly") && held.contains("SameSite=Lax") && held.contains("Path=/__/auth/"), "\(held)"
            )
            // The explicit link step: the page's form carries the state's link token.
            #expect(try EndToEndPickerEmailTests.hiddenFields(page.text).first(named: "link")?.count == 43)
            for response in walk.handlerResponses {
                #expect(response.headers["Location"]?.contains("pendingCredential") != true)
            }

            // A wrong password: the form again, nothing linked.
            var form = try EndToEndPickerEmailTests.hiddenFields(page.text)
            #expect(form.first(named: "redirectUrl") == EndToEnd.appRedirect)
            let wrong = try await Self.post(e2e, form, password: "nope")
            #expect(EndToEndPickerEmailTests.inlineError(wrong) == "invalid-credential", "\(wrong.text)")
            form = try EndToEndPickerEmailTests.hiddenFields(wrong.text)
            let signedIn = try await Self.post(e2e, form, password: Self.password)
            let query = try EndToEndPickerEmailTests.appQuery(signedIn)
            let redeemed = try await e2e.redeem(code: try #require(query.first(named: "code")))
            #expect(redeemed.json?["signIn"]?["localId"]?.stringValue == localID, "\(redeemed.text)")
            let idToken = try #require(redeemed.json?["signIn"]?["idToken"]?.stringValue)
            let user = try #require(try await e2e.getUser(idToken))
            let providers = user["providerUserInfo"]?.arrayValue?.compactMap { $0["providerId"]?.stringValue } ?? []
            #expect(providers.contains("google.com"), "\(user)")
            let state = signedIn.headers.values(for: "Set-Cookie").first { $0.hasPrefix("auth_handler_picker=") }
            #expect(state?.contains("Max-Age=0") == true, "the picker's state is cleared after the link")
            // Google now signs alice in directly.
            let again = try await e2e.walk(from: try await Self.googleButton(e2e, user: "alice"))
            let code = try #require(again.appQuery.first(named: "code"), "\(again.appQuery)")
            #expect(try await e2e.redeem(code: code).json?["signIn"]?["localId"]?.stringValue == localID)
        }
    }
}

/// The picker's state cannot be planted (HTTP-API.md §3.6, docs/ACCOUNTS.md "Sign-in through the picker, and login
/// CSRF"): an attacker's Google identity carries alice's address; the attacker takes their `auth_handler_picker`
/// cookie from the account-exists page in their browser and tosses it into alice's. Her sign-ins never link it.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct EndToEndPickerPlantedStateTests {
    typealias Link = EndToEndPickerLinkTests

    /// Alice's password account, then the attacker's browser at the account-exists page: the page and the state cookie.
    static func attackerAtAccountExists(_ e2e: EndToEnd) async throws -> (page: OutboundResponse, state: String) {
        _ = try await e2e.passwordSignUp("alice@example.com", Link.password)
        try await e2e.markEmailVerified("alice@example.com")
        let walk = try await e2e.walk(from: try await Link.googleButton(e2e, user: "alice"))
        let page = try #require(walk.handlerResponses.last)
        #expect(page.text.contains("You already have an account with alice@example.com"), "\(page.text)")
        let state = try #require(e2e.cookieJar.withLock { $0["auth_handler_picker"] })
        return (page, state)
    }

    /// The test's browser becomes alice's: no cookie of the attacker's but the planted `state`.
    static func victimBrowser(_ e2e: EndToEnd, planted state: String) {
        e2e.cookieJar.withLock { $0 = ["auth_handler_picker": state] }
    }

    /// The providers of the account a `303` to the app signed in.
    static func providers(_ e2e: EndToEnd, _ signedIn: OutboundResponse) async throws -> [String] {
        let query = try EndToEndPickerEmailTests.appQuery(signedIn)
        let redeemed = try await e2e.redeem(code: try #require(query.first(named: "code")))
        let idToken = try #require(redeemed.json?["signIn"]?["idToken"]?.stringValue, "\(redeemed.text)")
        let user = try #require(try await e2e.getUser(idToken))
        #expect(user["email"]?.stringValue == "alice@example.com")
        return user["providerUserInfo"]?.arrayValue?.compactMap { $0["providerId"]?.stringValue } ?? []
    }

    static func clearsState(_ response: OutboundResponse) -> Bool {
        response.headers.values(for: "Set-Cookie").contains {
            $0.hasPrefix("auth_handler_picker=;") && $0.contains("Max-Age=0")
        }
    }

    @Test(
        "a planted state: alice's plain picker sign-in links nothing and clears it; a garbage one blocks nothing",
        arguments: AccountsDatabaseEngine.allCases)
    func plainSignInNeverLinks(engine: AccountsDatabaseEngine) async throws {
        try await withEndToEnd(backend: .accounts(engine: engine)) { e2e in
            let attacker = try await Self.attackerAtAccountExists(e2e)
            Self.victimBrowser(e2e, planted: attacker.state)
            let signedIn = try await EndToEndPickerEmailTests.submit(
                e2e, [("email", "alice@example.com"), ("password", Link.password)])
            #expect(Self.clearsState(signedIn), "\(signedIn.headers.values(for: "Set-Cookie"))")
            #expect(e2e.cookieJar.withLock { $0["auth_handler_picker"] } == nil)
            #expect(try await !Self.providers(e2e, signedIn).contains("google.com"), "the planted identity was linked")
            // A state that opens to nothing (stale keys, garbage) does not stand in the way either.
            Self.victimBrowser(e2e, planted: "garbage")
            let again = try await EndToEndPickerEmailTests.submit(
                e2e, [("email", "alice@example.com"), ("password", Link.password)])
            #expect(Self.clearsState(again))
            #expect(try await !Self.providers(e2e, again).contains("google.com"))
        }
    }

    @Test(
        "a state from another browser: refused on the link step and on a link start, cleared; alice signs in",
        arguments: AccountsDatabaseEngine.allCases)
    func anotherBrowsersStateIsNotLinked(engine: AccountsDatabaseEngine) async throws {
        try await withEndToEnd(backend: .accounts(engine: engine)) { e2e in
            let attacker = try await Self.attackerAtAccountExists(e2e)
            let token = try #require(try EndToEndPickerEmailTests.hiddenFields(attacker.page.text).first(named: "link"))
            // The link step posted from alice's browser (her own CSRF token) with the attacker's state and token.
            Self.victimBrowser(e2e, planted: attacker.state)
            let picker = try await e2e.get(EndToEndPickerEmailTests.pickerURL(e2e))
            let form =
                try EndToEndPickerEmailTests.hiddenFields(picker.text) + [URLFormField(name: "link", value: token)]
            let refused = try await Link.post(e2e, form, password: Link.password)
            #expect(refused.status == 400, "\(refused.status) \(refused.text)")
            #expect(EndToEndPickerEmailTests.inlineError(refused) == "invalid-pending-credential", "\(refused.text)")
            #expect(Self.clearsState(refused), "\(refused.headers.values(for: "Set-Cookie"))")
            let plain = try EndToEndPickerEmailTests.hiddenFields(refused.text)
            #expect(plain.first(named: "link") == nil, "the form after a failed link is the plain one")
            // Nothing blocks her plain sign-in from that form, and nothing was linked.
            let signedIn = try await Link.post(e2e, plain, password: Link.password)
            #expect(try await !Self.providers(e2e, signedIn).contains("google.com"))
            // The account-exists page's button, started in alice's browser with the attacker's state: refused.
            Self.victimBrowser(e2e, planted: attacker.state)
            _ = try await e2e.get(EndToEndPickerEmailTests.pickerURL(e2e))
            let button =
                try await Link.googleButton(e2e, user: "alice") + "&"
                + FormURLEncoding.encode([URLFormField(name: "link", value: token)])
            let start = try await e2e.get(button, accept: "application/json")
            #expect(start.status == 400 && start.errorCode == "invalid-state", "\(start.text)")
            #expect(Self.clearsState(start))
        }
    }
}

extension EndToEnd {
    /// `GET /__/auth/user` with the bearer `idToken`: the account, or nil on a refusal.
    func getUser(_ idToken: String) async throws -> JSONValue? {
        let response = try await send(
            OutboundRequest(
                method: "GET", url: daemonURL + "/__/auth/user",
                headers: ["Authorization": "Bearer " + idToken, "Accept": "application/json"]),
            freshBrowser: true)
        return response.status == 200 ? response.json : nil
    }
}
