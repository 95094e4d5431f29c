import Foundation
import Synchronization
import TestSupport
import Testing

@testable import AuthHandlerAccounts
@testable import AuthHandlerCrypto
@testable import AuthHandlerStore

/// The e-mail actions of the accounts engine against the SQLite store (docs/ACCOUNTS.md "E-mail actions"), with the
/// mail captured and time moved by a `TestClock`.
struct AccountsActionTests {
    static let password = "correct horse battery staple"
    static let newPassword = "a brand new passphrase for tests"
    static let client = ClientKey(resolved: "192.0.2.1")

    @Test(
        "a code is 43 base64url characters stored only as its digest; a look leaves it usable, a use takes it once",
        arguments: AccountStoreKind.allCases)
    func singleUse(kind: AccountStoreKind) async throws {
        try await withActions(on: kind) { fixture in
            let caller = try await fixture.signUp("single@example.com")
            #expect(try await fixture.engine.requestVerification(caller.caller, continueURL: nil, mail: fixture.mail))
            let code = try await fixture.lastCode()
            #expect(code.utf8.count == 43 && Base64.urlDecode(code)?.count == 32)
            #expect(
                try await fixture.store.peekCode(digest: SHA256.hash(Array(code.utf8)), now: fixture.clock.read())
                    != nil)
            for _ in 0..<2 {
                let info = try await fixture.engine.inspectAction(mode: "verifyEmail", code: code)
                #expect(info == .init(kind: .verifyEmail, email: "single@example.com"))
            }
            #expect(try await fixture.user(caller).emailVerified == false)
            _ = try await fixture.engine.applyAction(
                mode: "verifyEmail", code: code, newPassword: nil, client: Self.client, mail: fixture.mail)
            #expect(try await fixture.user(caller).emailVerified)
            let again = await actionsError {
                _ = try await fixture.engine.applyAction(
                    mode: "verifyEmail", code: code, newPassword: nil, client: Self.client, mail: fixture.mail)
            }
            #expect(again?.code == .invalidActionCode)
        }
    }

    @Test(
        "lifetimes: a reset code an hour, a verification three days, a recovery seven days",
        arguments: AccountStoreKind.allCases)
    func lifetimes(kind: AccountStoreKind) async throws {
        try await withActions(on: kind) { fixture in
            let caller = try await fixture.signUp("expiry@example.com")
            for (kind, lifetime) in [
                (OneTimeCodeKind.resetPassword, 3600.0), (.verifyEmail, 3 * 86400), (.verifyAndChangeEmail, 3 * 86400),
                (.recoverEmail, 7 * 86400),
            ] {
                let issued = fixture.clock.read()
                let code = try await fixture.engine.issueCode(kind, for: caller.user, email: "expiry@example.com")
                let digest = try SHA256.hash(Array(code.utf8))
                #expect(try await fixture.store.peekCode(digest: digest, now: issued + lifetime - 1) != nil, "\(kind)")
                #expect(try await fixture.store.peekCode(digest: digest, now: issued + lifetime) == nil, "\(kind)")
            }
            let reset = try await fixture.engine.issueCode(
                .resetPassword, for: caller.user, email: "expiry@example.com")
            fixture.clock.advance(by: 3601)
            let expired = await actionsError {
                _ = try await fixture.engine.inspectAction(mode: "resetPassword", code: reset)
            }
            #expect(expired?.code == .invalidActionCode)
        }
    }

    @Test(
        "a code dies when the account's password or address changes after it was issued",
        arguments: AccountStoreKind.allCases)
    func codesFollowTheAccount(kind: AccountStoreKind) async throws {
        try await withActions(on: kind) { fixture in
            let caller = try await fixture.signUp("follow@example.com")
            let reset = try await fixture.engine.issueCode(
                .resetPassword, for: caller.user, email: "follow@example.com")
            _ = try await fixture.engine.changePassword(caller.caller, to: Self.newPassword, client: Self.client)
            let afterPassword = await actionsError {
                _ = try await fixture.engine.inspectAction(mode: "resetPassword", code: reset)
            }
            #expect(afterPassword?.code == .invalidActionCode)

            let current = try await fixture.user(caller)
            let verify = try await fixture.engine.issueCode(.verifyEmail, for: current, email: "follow@example.com")
            #expect(try await fixture.engine.inspectAction(mode: "verifyEmail", code: verify).kind == .verifyEmail)
            var moved = current
            moved.email = "moved@example.com"
            moved.normalizedEmail = "moved@example.com"
            try await fixture.store.updateUser(moved)
            let afterAddress = await actionsError {
                _ = try await fixture.engine.inspectAction(mode: "verifyEmail", code: verify)
            }
            #expect(afterAddress?.code == .invalidActionCode)
        }
    }

    @Test(
        "a code is refused for another mode and before any lookup when it is not a code's shape",
        arguments: AccountStoreKind.allCases)
    func modeAndShape(kind: AccountStoreKind) async throws {
        try await withActions(on: kind) { fixture in
            let caller = try await fixture.signUp("mode@example.com")
            let code = try await fixture.engine.issueCode(.verifyEmail, for: caller.user, email: "mode@example.com")
            let otherMode = await actionsError {
                _ = try await fixture.engine.applyAction(
                    mode: "resetPassword", code: code, newPassword: Self.newPassword, client: Self.client, mail: nil)
            }
            #expect(otherMode?.code == .invalidActionCode)
            #expect(try await fixture.engine.inspectAction(mode: "verifyEmail", code: code).kind == .verifyEmail)
            let unknownMode = await actionsError {
                _ = try await fixture.engine.inspectAction(mode: "signIn", code: code)
            }
            #expect(unknownMode?.code == .invalidRequest)
            let malformed = await actionsError {
                _ = try await fixture.engine.inspectAction(mode: "verifyEmail", code: String(code.dropLast()))
            }
            #expect(malformed?.code == .invalidActionCode)
        }
    }

    @Test(
        "the reset mail goes to the stored address, not the one typed; an unknown or disabled one gets none",
        arguments: AccountStoreKind.allCases)
    func resetMailRecipient(kind: AccountStoreKind) async throws {
        try await withActions(on: kind) { fixture in
            _ = try await fixture.signUp("Mixed.Case@Example.com")
            #expect(
                try await fixture.engine.requestPasswordReset(
                    email: "mixed.case@EXAMPLE.com", continueURL: nil, mail: fixture.mail))
            #expect(
                !(try await fixture.engine.requestPasswordReset(
                    email: "nobody@example.com", continueURL: nil, mail: fixture.mail)))
            let disabled = try await fixture.signUp("disabled@example.com")
            var user = disabled.user
            user.disabled = true
            try await fixture.store.updateUser(user)
            #expect(
                !(try await fixture.engine.requestPasswordReset(
                    email: "disabled@example.com", continueURL: nil, mail: fixture.mail)))
            await fixture.mail.queue.drain()
            #expect(fixture.mailer.messages.map(\.envelopeRecipient) == ["Mixed.Case@example.com"])
            #expect(fixture.mailer.messages.map(\.kind) == [.resetPassword])
        }
    }

    @Test(
        "a reset proves an unverified address: verified, identities and pending credentials removed, sessions ended",
        arguments: AccountStoreKind.allCases)
    func resetProvesAddress(kind: AccountStoreKind) async throws {
        try await withActions(on: kind) { fixture in
            let caller = try await fixture.signUp("prehijack@example.com")
            let bearer = caller.token
            let at = fixture.clock.read()
            try await fixture.store.linkIdentity(
                AccountIdentity(
                    providerID: "github.com", providerUserID: "attacker", localID: caller.user.localID, email: nil,
                    displayName: nil, createdAt: at))
            let pending = try SHA256.hash(Array("pending".utf8))
            try await fixture.store.insertPendingCredential(
                PendingCredentialRecord(digest: pending, localID: caller.user.localID, expiresAt: at + 600))
            #expect(
                try await fixture.engine.requestPasswordReset(
                    email: "prehijack@example.com", continueURL: nil, mail: fixture.mail))
            let code = try await fixture.lastCode()
            fixture.clock.advance(by: 1)
            // A password the policy refuses uses nothing.
            let weak = await actionsError {
                _ = try await fixture.engine.applyAction(
                    mode: "resetPassword", code: code, newPassword: "short", client: Self.client, mail: nil)
            }
            #expect(weak?.code == .weakPassword)
            _ = try await fixture.engine.applyAction(
                mode: "resetPassword", code: code, newPassword: Self.newPassword, client: Self.client, mail: nil)
            let user = try await fixture.user(caller)
            #expect(user.emailVerified)
            #expect(user.passwordVersion == caller.user.passwordVersion + 1)
            #expect(try await fixture.store.identities(of: user.localID).isEmpty)
            #expect(try await fixture.store.takePendingCredential(digest: pending, now: fixture.clock.read()) == nil)
            #expect(try await fixture.store.session(id: caller.session.id)?.revokedAt != nil)
            let stale = await actionsError { _ = try await fixture.engine.authenticate(bearer) }
            #expect(stale?.code == .invalidIDToken)
            let old = await actionsError {
                _ = try await fixture.engine.signIn(
                    email: "prehijack@example.com", password: Self.password, client: Self.client, deviceCookie: nil)
            }
            #expect(old?.code == .invalidCredential)
            _ = try await fixture.engine.signIn(
                email: "prehijack@example.com", password: Self.newPassword, client: Self.client, deviceCookie: nil)
        }
    }

    @Test(
        "a change of address: refused for a taken one, made only at confirmation; recovery restores it, ends sessions",
        arguments: AccountStoreKind.allCases)
    func changeAndRecover(kind: AccountStoreKind) async throws {
        try await withActions(on: kind) { fixture in
            _ = try await fixture.signUp("taken@example.com")
            let unverified = try await fixture.signUp("owner@example.com")
            let notVerified = await actionsError {
                _ = try await fixture.engine.requestEmailChange(
                    unverified.caller, to: "new@example.com", continueURL: nil, mail: fixture.mail)
            }
            #expect(notVerified?.code == .emailNotVerified)
            var verified = unverified.user
            verified.emailVerified = true
            try await fixture.store.updateUser(verified)
            let caller = try await fixture.engine.authenticate(unverified.token)
            let taken = await actionsError {
                _ = try await fixture.engine.requestEmailChange(
                    caller, to: "Taken@example.com", continueURL: nil, mail: fixture.mail)
            }
            #expect(taken?.code == .emailAlreadyInUse)
            #expect(
                try await fixture.engine.requestEmailChange(
                    caller, to: "new@example.com", continueURL: nil, mail: fixture.mail))
            let confirm = try await fixture.lastCode()
            #expect(try await fixture.user(caller).email == "owner@example.com")
            #expect(fixture.mailer.messages.last?.envelopeRecipient == "new@example.com")
            _ = try await fixture.engine.applyAction(
                mode: "verifyAndChangeEmail", code: confirm, newPassword: nil, client: Self.client, mail: fixture.mail)
            #expect(try await fixture.user(caller).email == "new@example.com")
            let recover = try await fixture.lastCode()
            #expect(fixture.mailer.messages.last?.envelopeRecipient == "owner@example.com")
            #expect(fixture.mailer.messages.last?.kind == .emailChanged)

            // Whoever changed it may change the password too: the recovery still works.
            let moved = try await fixture.engine.authenticate(unverified.token)
            let changed = try await fixture.engine.changePassword(moved, to: Self.newPassword, client: Self.client)
            let pendingReset = try await fixture.engine.issueCode(
                .resetPassword, for: try await fixture.user(caller), email: "new@example.com")
            fixture.clock.advance(by: 1)
            let info = try await fixture.engine.applyAction(
                mode: "recoverEmail", code: recover, newPassword: nil, client: Self.client, mail: fixture.mail)
            #expect(info == .init(kind: .recoverEmail, email: "owner@example.com"))
            let user = try await fixture.user(caller)
            #expect(user.email == "owner@example.com" && user.normalizedEmail == "owner@example.com")
            let voided = try SHA256.hash(Array(pendingReset.utf8))
            #expect(try await fixture.store.peekCode(digest: voided, now: fixture.clock.read()) == nil)
            #expect(try await fixture.store.session(id: changed.sessionID)?.revokedAt != nil)
            let stale = await actionsError { _ = try await fixture.engine.authenticate(changed.idToken.token.reveal()) }
            #expect(stale?.code == .invalidIDToken)
        }
    }

    @Test("a recovery code dies when the address moved again after it was issued", arguments: AccountStoreKind.allCases)
    func recoveryFollowsTheAddress(kind: AccountStoreKind) async throws {
        try await withActions(on: kind) { fixture in
            let caller = try await fixture.signUp("first@example.com")
            var user = caller.user
            user.email = "second@example.com"
            user.normalizedEmail = "second@example.com"
            try await fixture.store.updateUser(user)
            let code = try await fixture.engine.issueCode(
                .recoverEmail, for: user, email: "first@example.com", newEmail: "second@example.com")
            #expect(
                try await fixture.engine.inspectAction(mode: "recoverEmail", code: code).email == "first@example.com")
            user.email = "third@example.com"
            user.normalizedEmail = "third@example.com"
            try await fixture.store.updateUser(user)
            let moved = await actionsError {
                _ = try await fixture.engine.inspectAction(mode: "recoverEmail", code: code)
            }
            #expect(moved?.code == .invalidActionCode)
        }
    }

    @Test(
        "reauthentication renews auth_time with the right password; a wrong one is invalid-credential",
        arguments: AccountStoreKind.allCases)
    func reauthenticate(kind: AccountStoreKind) async throws {
        try await withActions(on: kind) { fixture in
            let caller = try await fixture.signUp("reauth@example.com")
            fixture.clock.advance(by: 600)
            let stale = await actionsError {
                _ = try await fixture.engine.authenticate(caller.token, recency: .recent)
            }
            #expect(stale?.code == .requiresRecentLogin)
            let wrong = await actionsError {
                _ = try await fixture.engine.reauthenticate(
                    caller.caller, password: "not the password", client: Self.client)
            }
            #expect(wrong?.code == .invalidCredential)
            let (_, token) = try await fixture.engine.reauthenticate(
                caller.caller, password: Self.password, client: Self.client)
            let renewed = try await fixture.engine.authenticate(token.token.reveal(), recency: .recent)
            #expect(renewed.session.authTime == fixture.clock.read())
        }
    }

    @Test(
        "a link that adds an identity mails one notice naming it; linking it again succeeds and mails nothing",
        arguments: AccountStoreKind.allCases)
    func linkNoticeOnlyWhenAdded(kind: AccountStoreKind) async throws {
        try await withActions(on: kind) { fixture in
            let email = "linker@example.com"
            let account = try await fixture.signUp(email)
            #expect(try await fixture.engine.requestVerification(account.caller, continueURL: nil, mail: fixture.mail))
            _ = try await fixture.engine.applyAction(
                mode: "verifyEmail", code: try await fixture.lastCode(), newPassword: nil, client: Self.client,
                mail: fixture.mail)
            await fixture.mail.queue.drain()
            let verified = fixture.mailer.messages.count
            // Two provider sign-ins for the verified address: two pending credentials for one Google identity.
            let claim = ProviderIdentityClaim(
                providerID: "google.com", providerUserID: "g-1", email: email, displayName: nil, photoURL: nil)
            var pending: [String] = []
            for _ in 0..<2 {
                let refusal = await actionsError {
                    _ = try await fixture.engine.providerSignIn(claim, auth: .signIn, verifier: "v", mail: fixture.mail)
                }
                #expect(refusal?.code == .accountExistsWithDifferentCredential)
                pending.append(try #require(refusal?.details["pendingCredential"]?.stringValue))
            }
            fixture.clock.advance(by: 5)
            let signedIn = try await fixture.engine.signIn(
                email: email, password: Self.password, client: Self.client, deviceCookie: nil)
            let caller = try await fixture.engine.authenticate(signedIn.grant.idToken.token.reveal())

            _ = try await fixture.engine.linkPending(
                caller, pendingCredential: pending[0], verifier: "v", mail: fixture.mail)
            await fixture.mail.queue.drain()
            let notices = fixture.mailer.messages.dropFirst(verified)
            #expect(notices.map(\.kind) == [.identityLinked])
            let body = QuotedPrintableDecoder.decode(
                AccountsMailMessageTests.split(try #require(notices.first)).body)
            #expect(body.contains("google.com"), "\(body)")

            // The second credential names the identity the account now has: used up, a success, no second notice.
            let again = try await fixture.engine.linkPending(
                caller, pendingCredential: pending[1], verifier: "v", mail: fixture.mail)
            #expect(again.localID == caller.user.localID)
            let reused = await actionsError {
                _ = try await fixture.engine.linkPending(
                    caller, pendingCredential: pending[1], verifier: "v", mail: fixture.mail)
            }
            #expect(reused?.code == .invalidPendingCredential)
            // Nor does linking it again by redirect (authType link).
            _ = try await fixture.engine.providerSignIn(
                claim, auth: .link(idToken: signedIn.grant.idToken.token.reveal()), verifier: "v", mail: fixture.mail)
            await fixture.mail.queue.drain()
            #expect(fixture.mailer.messages.count == verified + 1)

            // A new identity linked by redirect is mailed, naming its provider.
            let github = ProviderIdentityClaim(
                providerID: "github.com", providerUserID: "gh-1", email: nil, displayName: nil, photoURL: nil)
            _ = try await fixture.engine.providerSignIn(
                github, auth: .link(idToken: signedIn.grant.idToken.token.reveal()), verifier: "v", mail: fixture.mail)
            await fixture.mail.queue.drain()
            let last = try #require(fixture.mailer.messages.last)
            #expect(fixture.mailer.messages.count == verified + 2)
            #expect(last.kind == .identityLinked)
            #expect(QuotedPrintableDecoder.decode(AccountsMailMessageTests.split(last).body).contains("github.com"))
        }
    }
}

/// An engine on a fresh store (SQLite unless `withActions` names the kind; every test here names each in turn), its mail captured, its time a `TestClock`.
struct ActionFixture {
    let engine: AccountsEngine
    let store: any AccountStore
    let mail: AccountsMail
    let mailer: CapturingMailer
    let clock: TestClock

    func signUp(_ email: String) async throws -> TestAccount {
        let grant = try await engine.signUp(
            email: email, password: AccountsActionTests.password, displayName: nil, client: AccountsActionTests.client)
        let token = grant.idToken.token.reveal()
        return TestAccount(caller: try await engine.authenticate(token), token: token)
    }

    func user(_ account: TestAccount) async throws -> AccountUser {
        try #require(try await store.user(localID: account.user.localID))
    }

    func user(_ caller: AccountsEngine.Caller) async throws -> AccountUser {
        try #require(try await store.user(localID: caller.user.localID))
    }

    /// The code of the last mail sent, once the queue has handed every mail on.
    func lastCode() async throws -> String {
        await mail.queue.drain()
        let message = try #require(mailer.messages.last)
        let body = QuotedPrintableDecoder.decode(AccountsMailMessageTests.split(message).body)
        return try #require(body.firstMatch(of: #/oobCode=([A-Za-z0-9_-]+)/#).map { String($0.1) })
    }
}

/// A signed-up user: the caller its ID token names, and that token's text.
struct TestAccount {
    let caller: AccountsEngine.Caller
    let token: String
    var user: AccountUser { caller.user }
    var session: AccountSession { caller.session }
}

/// Hands every message to a list instead of a server.
final class CapturingMailer: Mailer {
    private let sent = Mutex<[MailMessage]>([])

    func deliver(_ message: MailMessage) async throws(MailDeliveryError) {
        sent.withLock { $0.append(message) }
    }

    var messages: [MailMessage] { sent.withLock { $0 } }
}

func withActions<T>(on kind: AccountStoreKind = .sqlite, _ body: (ActionFixture) async throws -> T) async throws -> T {
    let clock = TestClock()
    return try await withAccountStore(kind, clock: clock) { store in
        let cookies = DeviceCookie(key: Array(repeating: 7, count: 32), now: clock.read)
        let engine = AccountsEngine(
            store: store,
            settings: AccountsSettings(
                idToken: IDTokenSettings(publicURL: "https://auth.example.com", audience: "https://api.example.com")),
            keys: try SigningKeyRing(current: try AccountSigningKey.generate()),
            hasher: try PasswordHasher(
                parameters: .cheap, budget: HashingBudget(perMinute: 10_000, burst: 1000, now: clock.read)),
            policy: PasswordPolicy(), throttle: SignInThrottle(deviceCookies: cookies, now: clock.read),
            deviceCookies: cookies, pendingCredentialKey: Array(repeating: 9, count: 32), now: clock.read)
        let mailer = CapturingMailer()
        let mail = AccountsMail(
            queue: MailQueue(mailer: mailer, limits: store, report: { _ in }),
            sender: try MailSender(parsing: "App <no-reply@example.com>"), appName: "App",
            baseURL: "https://auth.example.com", now: clock.read)
        return try await body(ActionFixture(engine: engine, store: store, mail: mail, mailer: mailer, clock: clock))
    }
}

/// The accounts error `body` throws; nil when it throws none or another.
func actionsError(_ body: () async throws -> Void) async -> AccountsError? {
    do {
        try await body()
        return nil
    } catch {
        return error as? AccountsError
    }
}
