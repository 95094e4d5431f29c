import Foundation
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerCrypto
@testable import AuthHandlerHTTP

/// The picker's e-mail entry in parts (HTTP-API.md §3.6): the account result a redemption starts a session from,
/// the login-CSRF token, and the sealed state of a provider sign-in the picker started.
struct ServicePickerEmailTests {
    static let account = StoredResult(
        providerID: "password", authType: .signInViaRedirect, eventID: "e", resultChallenge: "c",
        credential: IdPCredential(), profile: ProviderProfile(id: "uid-1", displayName: "Erin", email: "e@example.com"),
        requestURI: "https://auth.example/__/auth/handler", createdAt: Date(timeIntervalSinceReferenceDate: 5),
        account: AccountResult(
            localID: "uid-1", method: "password", authTime: Date(timeIntervalSinceReferenceDate: 5), isNewUser: true))

    @Test func anAccountResultReadsBackAndAProviderResultHasNone() throws {
        #expect(StoredResult(parsing: Self.account.serialized) == Self.account)
        var provider = Self.account
        provider.account = nil
        let read = try #require(StoredResult(parsing: provider.serialized))
        #expect(read.account == nil)
    }

    @Test func aMalformedAccountMemberRefusesTheResult() throws {
        guard case .object(var members) = Self.account.json else { throw CancellationError() }
        members["account"] = .object(["localId": .string("uid-1")])
        #expect(StoredResult(parsing: JSONValue.object(members).serialized(sortingKeys: true)) == nil)
    }

    @Test func aCSRFTokenPassesOnlyWithItsOwnCookie() throws {
        let csrf = PickerCSRF(keys: try StateKeyRing.random(), https: false)
        let value = try PickerCSRF.newValue()
        let token = try csrf.token(for: value)
        #expect(csrf.accepts(token, cookieHeaders: ["auth_handler_csrf=\(value)"]))
        #expect(csrf.accepts(token, cookieHeaders: ["other=1; auth_handler_csrf=\(value)"]))
        let other = try PickerCSRF.newValue()
        #expect(!csrf.accepts(token, cookieHeaders: ["auth_handler_csrf=\(other)"]), "another browser's cookie")
        #expect(!csrf.accepts(token, cookieHeaders: []), "no cookie")
        #expect(!csrf.accepts(nil, cookieHeaders: ["auth_handler_csrf=\(value)"]), "no token")
        #expect(!csrf.accepts(value, cookieHeaders: ["auth_handler_csrf=\(value)"]), "the bare value is no token")
        // Made under other keys, or for another purpose under the same keys: refused.
        let elsewhere = PickerCSRF(keys: try StateKeyRing.random(), https: false)
        #expect(!csrf.accepts(try elsewhere.token(for: value), cookieHeaders: ["auth_handler_csrf=\(value)"]))
        let sealedForState = try csrf.keys.seal(Array(value.utf8), context: PickerState.context)
        #expect(!csrf.accepts(sealedForState, cookieHeaders: ["auth_handler_csrf=\(value)"]))
        // Over https the cookie is __Host- prefixed, Secure, Path=/.
        let https = PickerCSRF(keys: csrf.keys, https: true)
        let header = https.setCookie(value)
        #expect(
            header.hasPrefix("__Host-auth_handler_csrf=") && header.contains("; Secure") && header.contains("Path=/;"))
        #expect(!https.accepts(token, cookieHeaders: ["auth_handler_csrf=\(value)"]), "the unprefixed name over https")
    }

    @Test func thePickerStateReadsBackFromItsCookieOnly() throws {
        let keys = try StateKeyRing.random()
        var state = PickerState(
            verifier: "v",
            app: PickerEmailStart(
                redirectURL: "https://app.example/", eventID: "e", resultChallenge: "c", resultDelivery: .fragment),
            browser: try PickerState.browserDigest("browser-a"))
        state.pendingCredential = "pending"
        state.pendingVerifier = "v"
        state.email = "a@example.com"
        state.methods = ["password", "github.com"]
        state.linkToken = "k"
        let sealed = try keys.seal(state.json.serialized(sortingKeys: true), context: PickerState.context)
        let opened = try #require(PickerState.opened(["auth_handler_picker=\(sealed)"], keys: keys, https: false))
        #expect(opened.json == state.json)
        #expect(
            PickerState.opened(["auth_handler_picker=\(sealed)"], keys: try StateKeyRing.random(), https: false) == nil)
        let wrongContext = try keys.seal(state.json.serialized(sortingKeys: true), context: PickerCSRF.context)
        #expect(PickerState.opened(["auth_handler_picker=\(wrongContext)"], keys: keys, https: false) == nil)
        // Over https only the __Host- name is read.
        #expect(PickerState.opened(["auth_handler_picker=\(sealed)"], keys: keys, https: true) == nil)
        #expect(PickerState.opened(["__Host-auth_handler_picker=\(sealed)"], keys: keys, https: true) != nil)
        let header = PickerState.clearing(secure: true)
        #expect(header.hasPrefix("__Host-auth_handler_picker=;") && header.contains("Path=/;"), "\(header)")
    }

    @Test func thePickerStateLinksOnlyInItsBrowserWithItsToken() throws {
        let csrf = PickerCSRF(keys: try StateKeyRing.random(), https: false)
        var state = PickerState(
            verifier: "v",
            app: PickerEmailStart(
                redirectURL: "https://app.example/", eventID: nil, resultChallenge: nil, resultDelivery: nil),
            browser: try PickerState.browserDigest("browser-a"))
        state.pendingCredential = "pending"
        state.pendingVerifier = "v"
        state.linkToken = "k"
        #expect(state.isBound(to: ["auth_handler_csrf=browser-a"], csrf: csrf))
        #expect(state.allowsLink("k", cookieHeaders: ["auth_handler_csrf=browser-a"], csrf: csrf))
        #expect(!state.allowsLink("k", cookieHeaders: ["auth_handler_csrf=browser-b"], csrf: csrf), "another browser")
        #expect(!state.allowsLink("k", cookieHeaders: [], csrf: csrf), "no CSRF cookie")
        #expect(!state.allowsLink("x", cookieHeaders: ["auth_handler_csrf=browser-a"], csrf: csrf), "another token")
        #expect(!state.allowsLink(nil, cookieHeaders: ["auth_handler_csrf=browser-a"], csrf: csrf), "no link step")
        state.pendingCredential = nil
        #expect(!state.allowsLink("k", cookieHeaders: ["auth_handler_csrf=browser-a"], csrf: csrf), "nothing pending")
    }
}
