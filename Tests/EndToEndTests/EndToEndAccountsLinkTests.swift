import AuthHandlerHTTP
import Foundation
import TestSupport
import Testing

/// One account per e-mail (issue 25 §2, docs/ACCOUNTS.md "Linking") through the real binary: the fake IdP's `alice`
/// and `bob` are Google users whose e-mail Google vouches for (`email_verified: true`).
@Suite(.serialized) struct EndToEndAccountsLinkTests {
    static let password = "linking passphrase of alice"

    /// A password account for `email`, and the fake IdP's Google sign-in for the same address answered 409.
    static func conflict(_ e2e: EndToEnd, user: String) async throws -> (localID: String, pending: String) {
        let signUp = try await e2e.passwordSignUp("\(user)@example.com", password)
        try await e2e.markEmailVerified("\(user)@example.com")
        let answer = try await e2e.providerSignIn("google.com", user: user)
        #expect(answer.status == 409, "\(answer.text)")
        #expect(answer.errorCode == "account-exists-with-different-credential")
        #expect(answer.json?["error"]?["email"]?.stringValue == "\(user)@example.com")
        #expect(answer.json?["error"]?["verifiedProviders"] == .array([.string("password")]))
        let pending = try #require(answer.json?["error"]?["pendingCredential"]?.stringValue, "\(answer.text)")
        return (try #require(signUp["localId"]?.stringValue), pending)
    }

    static func linkBody(_ pending: String, _ verifier: String) -> String {
        #"{"pendingCredential": "\#(pending)", "verifier": "\#(verifier)"}"#
    }

    @Test(
        "a verified account: 409 with a pending credential, linked only with its verifier, by a fresh sign-in, once",
        arguments: AccountsDatabaseEngine.allCases)
    func pendingCredentialBoundToVerifier(engine: AccountsDatabaseEngine) async throws {
        try await engine.run { try await pendingCredentialBoundToVerifier() }
    }

    func pendingCredentialBoundToVerifier() async throws {
        try await withEndToEnd(backend: .accounts()) { e2e in
            let (localID, pending) = try await Self.conflict(e2e, user: "alice")
            let fresh = try await e2e.passwordSignIn("alice@example.com", Self.password)
            let bearer = try #require(fresh.json?["idToken"]?.stringValue, "\(fresh.text)")

            // Planted in this browser by someone else, the credential is useless without its redemption's verifier.
            let otherVerifier = "someone-elses-verifier-0123456789-abcdefghijklmnopqrstuvwxyz"
            let planted = try await e2e.postJSON(
                "/__/auth/user/link", Self.linkBody(pending, otherVerifier), bearer: bearer)
            #expect(planted.status == 400, "\(planted.text)")
            #expect(planted.errorCode == "invalid-pending-credential")
            let afterPlanted = try await e2e.withBearer("GET", "/__/auth/user", bearer: bearer)
            #expect(afterPlanted.json?["providerUserInfo"] == .array([]), "\(afterPlanted.text)")
            // Nor can a credential be altered: one changed character no longer opens.
            let altered = String(pending.dropLast()) + (pending.hasSuffix("A") ? "B" : "A")
            let forged = try await e2e.postJSON(
                "/__/auth/user/link", Self.linkBody(altered, EndToEnd.appVerifier), bearer: bearer)
            #expect(forged.errorCode == "invalid-pending-credential", "\(forged.text)")

            let linked = try await e2e.postJSON(
                "/__/auth/user/link", Self.linkBody(pending, EndToEnd.appVerifier), bearer: bearer)
            #expect(linked.status == 200, "\(linked.text)")
            let identities = linked.json?["providerUserInfo"]?.arrayValue ?? []
            #expect(identities.count == 1)
            #expect(identities.first?["providerId"]?.stringValue == "google.com")
            #expect(identities.first?["rawId"]?.stringValue == "1001")

            // Single use: the same credential with the same verifier is refused the second time.
            let again = try await e2e.postJSON(
                "/__/auth/user/link", Self.linkBody(pending, EndToEnd.appVerifier), bearer: bearer)
            #expect(again.status == 400, "\(again.text)")
            #expect(again.errorCode == "invalid-pending-credential")

            // Google now signs in to the same account.
            let google = try await e2e.providerSignIn("google.com", user: "alice")
            #expect(google.status == 200, "\(google.text)")
            #expect(google.json?["signIn"]?["localId"]?.stringValue == localID)
            #expect(google.json?["signIn"]?["isNewUser"]?.boolValue == false)
        }
    }

    @Test("a pending credential links only to its own account", arguments: AccountsDatabaseEngine.allCases)
    func pendingCredentialBoundToAccount(engine: AccountsDatabaseEngine) async throws {
        try await engine.run { try await pendingCredentialBoundToAccount() }
    }

    func pendingCredentialBoundToAccount() async throws {
        try await withEndToEnd(backend: .accounts()) { e2e in
            let (_, pending) = try await Self.conflict(e2e, user: "alice")
            _ = try await e2e.passwordSignUp("mallory@example.com", Self.password)
            try await e2e.markEmailVerified("mallory@example.com")
            let mallory = try await e2e.passwordSignIn("mallory@example.com", Self.password)
            let bearer = try #require(mallory.json?["idToken"]?.stringValue, "\(mallory.text)")
            let refused = try await e2e.postJSON(
                "/__/auth/user/link", Self.linkBody(pending, EndToEnd.appVerifier), bearer: bearer)
            #expect(refused.status == 403, "\(refused.text)")
            #expect(refused.errorCode == "user-mismatch")
        }
    }

    @Test(
        "a pending credential links only by a session signed in after it was issued",
        arguments: AccountsDatabaseEngine.allCases)
    func pendingCredentialNeedsLaterSignIn(engine: AccountsDatabaseEngine) async throws {
        try await engine.run { try await pendingCredentialNeedsLaterSignIn() }
    }

    func pendingCredentialNeedsLaterSignIn() async throws {
        try await withEndToEnd(backend: .accounts()) { e2e in
            // A session of the account that predates the conflict (a tab left signed in, or a stolen ID token).
            let signUp = try await e2e.passwordSignUp("alice@example.com", Self.password)
            let earlier = try #require(signUp["idToken"]?.stringValue)
            try await e2e.markEmailVerified("alice@example.com")
            // Issue times are whole seconds and the engine allows one second of slack: let two pass.
            try await Task.sleep(for: .seconds(2))
            let answer = try await e2e.providerSignIn("google.com", user: "alice")
            let pending = try #require(answer.json?["error"]?["pendingCredential"]?.stringValue, "\(answer.text)")
            let refused = try await e2e.postJSON(
                "/__/auth/user/link", Self.linkBody(pending, EndToEnd.appVerifier), bearer: earlier)
            #expect(refused.status == 401, "\(refused.text)")
            #expect(refused.errorCode == "requires-recent-login")
            let fresh = try await e2e.passwordSignIn("alice@example.com", Self.password)
            let bearer = try #require(fresh.json?["idToken"]?.stringValue)
            let linked = try await e2e.postJSON(
                "/__/auth/user/link", Self.linkBody(pending, EndToEnd.appVerifier), bearer: bearer)
            #expect(linked.status == 200, "the refusal used the credential up: \(linked.text)")
        }
    }

    @Test(
        "a never-verified password account is taken over by the provider's verified identity",
        arguments: AccountsDatabaseEngine.allCases)
    func unverifiedAccountTakenOver(engine: AccountsDatabaseEngine) async throws {
        try await engine.run { try await unverifiedAccountTakenOver() }
    }

    func unverifiedAccountTakenOver() async throws {
        try await withEndToEnd(backend: .accounts()) { e2e in
            // Someone registered bob's address without proving it.
            let squatter = try await e2e.passwordSignUp("bob@example.com", Self.password)
            let squatterRefresh = try #require(squatter["refreshToken"]?.stringValue)
            let squatterToken = try #require(squatter["idToken"]?.stringValue)

            let google = try await e2e.providerSignIn("google.com", user: "bob")
            #expect(google.status == 200, "\(google.text)")
            #expect(google.json?["signIn"]?["previousMethodsRemoved"]?.boolValue == true)
            #expect(google.json?["signIn"]?["localId"] == squatter["localId"])
            #expect(google.json?["signIn"]?["isNewUser"]?.boolValue == false)

            // The password no longer signs in, and the squatter's sessions and ID token are dead.
            let oldPassword = try await e2e.passwordSignIn("bob@example.com", Self.password)
            #expect(oldPassword.status == 400, "\(oldPassword.text)")
            #expect(oldPassword.errorCode == "invalid-credential")
            let oldRefresh = try await e2e.refreshGrant(squatterRefresh)
            #expect(oldRefresh.status == 400, "\(oldRefresh.text)")
            #expect(oldRefresh.json?["error"]?.stringValue == "invalid_grant")
            let oldBearer = try await e2e.withBearer("GET", "/__/auth/user", bearer: squatterToken)
            #expect(oldBearer.status == 401, "\(oldBearer.text)")

            let bobToken = try #require(google.json?["signIn"]?["idToken"]?.stringValue)
            let account = try await e2e.withBearer("GET", "/__/auth/user", bearer: bobToken)
            #expect(account.json?["emailVerified"]?.boolValue == true, "\(account.text)")
            #expect(account.json?["passwordSet"]?.boolValue == false)
        }
    }

    @Test(
        "a never-verified password account cannot link: 403 email-not-verified at /user/link and by redirect",
        arguments: AccountsDatabaseEngine.allCases)
    func unverifiedAccountCannotLink(engine: AccountsDatabaseEngine) async throws {
        try await engine.run { try await unverifiedAccountCannotLink() }
    }

    func unverifiedAccountCannotLink() async throws {
        try await withEndToEnd(backend: .accounts()) { e2e in
            // A link by redirect (authType=linkViaRedirect with the account's ID token).
            let signUp = try await e2e.passwordSignUp("carol@example.com", Self.password)
            let carolToken = try #require(signUp["idToken"]?.stringValue)
            let walk = try await e2e.signIn("github.com", user: "alice", ["authType": "linkViaRedirect"])
            let code = try #require(walk.appQuery.first(named: "code"), "\(walk.appQuery)")
            let byRedirect = try await e2e.redeem(code: code, idToken: carolToken)
            #expect(byRedirect.status == 403, "\(byRedirect.text)")
            #expect(byRedirect.errorCode == "email-not-verified")
            let carol = try await e2e.withBearer("GET", "/__/auth/user", bearer: carolToken)
            #expect(carol.json?["providerUserInfo"] == .array([]), "\(carol.text)")

            // A pending credential of the account's own, presented while its address is not verified (as after an
            // e-mail change not yet confirmed): refused too.
            let (_, pending) = try await Self.conflict(e2e, user: "alice")
            try await e2e.markEmailVerified("alice@example.com", false)
            let fresh = try await e2e.passwordSignIn("alice@example.com", Self.password)
            let bearer = try #require(fresh.json?["idToken"]?.stringValue, "\(fresh.text)")
            let refused = try await e2e.postJSON(
                "/__/auth/user/link", Self.linkBody(pending, EndToEnd.appVerifier), bearer: bearer)
            #expect(refused.status == 403, "\(refused.text)")
            #expect(refused.errorCode == "email-not-verified")
        }
    }

    /// A link by redirect (`authType=linkViaRedirect`) as `user` at `provider`, for the holder of `idToken`.
    static func linkByRedirect(_ e2e: EndToEnd, _ provider: String, user: String, idToken: String) async throws
        -> OutboundResponse
    {
        let walk = try await e2e.signIn(provider, user: user, ["authType": "linkViaRedirect"])
        let code = try #require(walk.appQuery.first(named: "code"), "\(walk.appQuery)")
        return try await e2e.redeem(code: code, idToken: idToken)
    }

    @Test(
        "links by redirect: one identity per provider, none of another user's; the last way in stays; sign-out ends sid",
        arguments: AccountsDatabaseEngine.allCases
    )
    func linkRulesAndLastMethod(engine: AccountsDatabaseEngine) async throws {
        try await engine.run { try await linkRulesAndLastMethod() }
    }

    func linkRulesAndLastMethod() async throws {
        try await withEndToEnd(backend: .accounts()) { e2e in
            let alice = try await e2e.providerSignIn("google.com", user: "alice")
            let aliceToken = try #require(alice.json?["signIn"]?["idToken"]?.stringValue, "\(alice.text)")
            let linked = try await Self.linkByRedirect(e2e, "github.com", user: "bob", idToken: aliceToken)
            #expect(linked.status == 200, "\(linked.text)")
            #expect(linked.json?["signIn"]?["localId"] == alice.json?["signIn"]?["localId"])
            let second = try await Self.linkByRedirect(e2e, "github.com", user: "alice", idToken: aliceToken)
            #expect(second.status == 409, "\(second.text)")
            #expect(second.errorCode == "provider-already-linked")

            let bob = try await e2e.providerSignIn("google.com", user: "bob")
            let bobToken = try #require(bob.json?["signIn"]?["idToken"]?.stringValue, "\(bob.text)")
            #expect(bob.json?["signIn"]?["isNewUser"]?.boolValue == true)
            let taken = try await Self.linkByRedirect(e2e, "github.com", user: "bob", idToken: bobToken)
            #expect(taken.status == 409, "\(taken.text)")
            #expect(taken.errorCode == "credential-already-in-use")
            let last = try await e2e.postJSON(
                "/__/auth/user/unlink", #"{"providerId": "google.com"}"#, bearer: bobToken)
            #expect(last.status == 400, "\(last.text)")
            #expect(last.errorCode == "last-sign-in-method")

            // Signing out the session ends its sid: the ID token it was given no longer passes as a bearer.
            let bobRefresh = try #require(bob.json?["signIn"]?["refreshToken"]?.stringValue)
            let signOut = try await e2e.postJSON("/__/auth/sign-out", #"{"refreshToken": "\#(bobRefresh)"}"#)
            #expect(signOut.status == 200, "\(signOut.text)")
            let afterSignOut = try await e2e.withBearer("GET", "/__/auth/user", bearer: bobToken)
            #expect(afterSignOut.status == 401, "\(afterSignOut.text)")
            #expect(try await e2e.refreshGrant(bobRefresh).status == 400)
        }
    }
}
