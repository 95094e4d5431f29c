import AuthHandlerCrypto
import AuthHandlerStore
import Foundation

/// The e-mail actions (HTTP-API.md §3.10, docs/ACCOUNTS.md "E-mail actions"): password reset and change,
/// reauthentication, verification and change of the address, and the recovery of a changed address. A code is
/// mailed only to a stored address (or, to confirm a change, to the address asked for), is single use, and dies when
/// the account's address or password changes after it was issued.
extension AccountsEngine {
    /// What an action code is for and whom it names, as the action page shows it.
    package struct ActionCodeInfo: Sendable, Equatable {
        package var kind: OneTimeCodeKind
        /// The address the page names: the account's for a reset or a verification, the new one for a change, the
        /// one to restore for a recovery.
        package var email: String
    }

    // MARK: Requests that mail a link

    /// Mails a reset link to the stored address of the account with `email`, if there is one (and it is enabled);
    /// answers whether a mail was queued. The route answers `200 {}` before calling this, detached, so neither the
    /// answer nor its timing tells whether the address has an account (OWASP Forgot Password Cheat Sheet).
    @discardableResult
    /// A store that cannot answer is thrown, for the caller to log: the request was answered already.
    package func requestPasswordReset(email text: String, continueURL: String?, mail: AccountsMail)
        async throws(AccountsError) -> Bool
    {
        guard let email = try? EmailAddress(parsing: text),
            let user = try await storedUser(normalizedEmail: email.normalized), !user.disabled,
            let stored = user.email
        else { return false }
        let code = try await issueCode(.resetPassword, for: user, email: stored)
        let link = mail.actionLink(mode: OneTimeCodeKind.resetPassword.mode, code: code, continueURL: continueURL)
        return await mail.send(.resetPassword(link: link), to: stored, displayName: user.displayName)
    }

    /// Mails a verification link to the caller's stored address; false when the account has no address, is
    /// verified already, or the recipient's limit was reached.
    package func requestVerification(_ caller: Caller, continueURL: String?, mail: AccountsMail)
        async throws(AccountsError) -> Bool
    {
        guard let stored = caller.user.email, !caller.user.emailVerified else { return false }
        let code = try await issueCode(.verifyEmail, for: caller.user, email: stored)
        let link = mail.actionLink(mode: OneTimeCodeKind.verifyEmail.mode, code: code, continueURL: continueURL)
        return await mail.send(.verifyEmail(link: link), to: stored, displayName: caller.user.displayName)
    }

    /// Mails a link to `newEmail` that, once followed, makes it the account's address (Firebase's
    /// `verifyBeforeUpdateEmail`): nothing changes until then. The caller must have signed in recently (checked by
    /// the caller) and, when the account has an address, have verified it: `403 email-not-verified`. `409
    /// email-already-in-use` when another account has the address.
    package func requestEmailChange(_ caller: Caller, to newEmail: String, continueURL: String?, mail: AccountsMail)
        async throws(AccountsError) -> Bool
    {
        try Self.requireVerifiedForLinking(caller.user)
        let address = try Self.email(newEmail)
        guard address.normalized != caller.user.normalizedEmail else {
            throw AccountsError(.invalidRequest, "this is the account's e-mail address already")
        }
        if let other = try await Self.storing({ () throws(StoreError) in
            try await store.user(normalizedEmail: address.normalized)
        }), other.localID != caller.user.localID {
            throw AccountsError(.emailAlreadyInUse, "another account has this e-mail address")
        }
        let code = try await issueCode(
            .verifyAndChangeEmail, for: caller.user, email: caller.user.email ?? "", newEmail: address.given)
        let link = mail.actionLink(
            mode: OneTimeCodeKind.verifyAndChangeEmail.mode, code: code, continueURL: continueURL)
        return await mail.send(.verifyNewEmail(link: link), to: address.given, displayName: caller.user.displayName)
    }

    // MARK: Signed-in changes

    /// Sets the caller's password: the policy applies (`400 weak-password`), the hash counts against the client's
    /// budget. Every session of the user ends (`validSince` moves, so every ID token issued so far is refused too),
    /// and the caller continues in a new session, whose grant is answered.
    package func changePassword(_ caller: Caller, to password: String, client: ClientKey)
        async throws(AccountsError) -> Grant
    {
        try requirePasswords()
        let hash = try await newPasswordHash(password, client: client)
        let at = now()
        var user = caller.user
        user.setPasswordHash(hash)
        user.passwordVersion += 1
        user.validSince = at
        try await Self.storing { () throws(StoreError) in try await store.updateUser(user) }
        _ = try await Self.storing { () throws(StoreError) in
            try await store.revokeSessions(of: user.localID, except: nil, at: at)
        }
        return try await startSession(for: user, provider: caller.session.signInProvider, isNewUser: false)
    }

    /// Proves the caller's password again: the session's `auth_time` becomes now, and a fresh ID token says so. A
    /// wrong password (or an account without one) is `400 invalid-credential`; the hashing budget and the guessing
    /// throttle apply as at sign-in.
    package func reauthenticate(_ caller: Caller, password: String, client: ClientKey)
        async throws(AccountsError) -> (AccountUser, IssuedIDToken)
    {
        try requirePasswords()
        let wrong = AccountsError(.invalidCredential, "the password is wrong")
        guard let normalized = try? NormalizedPassword(password) else { throw wrong }
        let email = caller.user.normalizedEmail ?? caller.user.localID.value
        try await admit(
            email: email, client: client, deviceCookie: nil,
            refusal: "too many wrong passwords for this account; wait and try again")
        let check = try await hashing { () async throws(CryptoError) in
            try await hasher.verify(normalized, typed: Array(password.utf8), of: caller.user, client: client)
        }
        guard case .match(let rehashed) = check else {
            await throttle.recordFailure(email: email, client: client)
            throw wrong
        }
        await throttle.recordSuccess(email: email, client: client)
        let user = try await storeRehash(rehashed, of: caller.user)
        if rehashed != nil, caller.user.legacyPasswordHash == nil {
            try await Self.storing { () throws(StoreError) in try await store.updateUser(user) }
        }
        let at = now()
        try await Self.storing { () throws(StoreError) in try await store.setAuthTime(sessionID: caller.session.id, at)
        }
        var session = caller.session
        session.authTime = at
        return (user, try await issueIDToken(for: user, session: session))
    }

    // MARK: The action page

    /// What `code` is, for the page a link opens with a GET: the code stays usable (a mail scanner that opens the
    /// link uses nothing). `400 invalid-action-code` when it is unknown, expired, of another `mode`, or the account
    /// changed since it was issued.
    package func inspectAction(mode: String, code text: String) async throws(AccountsError) -> ActionCodeInfo {
        let (record, user) = try await liveCode(mode: mode, code: text, take: false)
        return Self.info(record, user: user)
    }

    /// Uses `code` (the action page's POST): of concurrent posts, one does. A reset needs `newPassword`, checked by
    /// the policy and hashed before the code is used, so a refused password leaves the link usable. `mail` sends the
    /// recovery link after a change of address.
    package func applyAction(
        mode: String, code text: String, newPassword: String?, client: ClientKey, mail: AccountsMail?
    ) async throws(AccountsError) -> ActionCodeInfo {
        let (peeked, _) = try await liveCode(mode: mode, code: text, take: false)
        var hash: String?
        if peeked.kind == .resetPassword {
            try requirePasswords()
            guard let newPassword else { throw AccountsError(.invalidRequest, "choose a new password") }
            hash = try await newPasswordHash(newPassword, client: client)
        }
        let (record, user) = try await liveCode(mode: mode, code: text, take: true)
        let info = Self.info(record, user: user)
        switch record.kind {
        case .resetPassword:
            guard let hash else { throw Self.invalidCode }
            try await resetPassword(user, hash: hash)
        case .verifyEmail:
            var verified = user
            verified.emailVerified = true
            try await Self.storing { () throws(StoreError) in try await store.updateUser(verified) }
        case .verifyAndChangeEmail:
            try await changeEmail(user, to: record.newEmail ?? "", mail: mail)
        case .recoverEmail:
            try await recoverEmail(user, to: record.email)
        }
        return info
    }

    /// A reset: the new password, every session ended; an address that was never verified is proven by the link,
    /// so it becomes verified and every other way in is removed (the identities and pending credentials someone who
    /// registered the address first may have left, as a provider's take-over does). The password version moves, so
    /// every code issued before dies, but a pending recovery of a changed address.
    /// One store transaction (`AccountStore.resetPassword`), so that no crash leaves a half-reset account.
    private func resetPassword(_ current: AccountUser, hash: String) async throws(AccountsError) {
        let (at, proves) = (now(), !current.emailVerified)
        _ = try await Self.storing { () throws(StoreError) in
            try await store.resetPassword(localID: current.localID, passwordHash: hash, provesAddress: proves, at: at)
        }
    }

    /// A confirmed change of address: the new one, verified; the old one, when there was one, is mailed a link
    /// that restores it (7 days).
    private func changeEmail(_ current: AccountUser, to newEmail: String, mail: AccountsMail?)
        async throws(AccountsError)
    {
        let address = try Self.email(newEmail)
        var user = current
        user.email = address.given
        user.normalizedEmail = address.normalized
        user.emailVerified = true
        try await update(user)
        guard let old = current.email, let mail else { return }
        let code = try await issueCode(.recoverEmail, for: user, email: old, newEmail: address.given)
        let link = mail.actionLink(mode: OneTimeCodeKind.recoverEmail.mode, code: code)
        await mail.send(.emailChanged(recoverLink: link, newAddress: address.given), to: old, displayName: nil)
    }

    /// A recovery: the old address back, verified (its mailbox followed the link), every session ended and every
    /// code and pending credential voided, so whoever changed it is signed out and holds no link.
    private func recoverEmail(_ current: AccountUser, to old: String) async throws(AccountsError) {
        let address = try Self.email(old)
        let at = now()
        var user = current
        user.email = address.given
        user.normalizedEmail = address.normalized
        user.emailVerified = true
        user.validSince = at
        try await update(user)
        _ = try await Self.storing { () throws(StoreError) in
            try await store.revokeSessions(of: user.localID, except: nil, at: at)
        }
        _ = try await Self.storing { () throws(StoreError) in try await store.deleteCodes(of: user.localID) }
        _ = try await Self.storing { () throws(StoreError) in try await store.deletePendingCredentials(of: user.localID)
        }
    }

    // MARK: Codes

    static let invalidCode = AccountsError(
        .invalidActionCode,
        "the link is unknown, was used or has expired, or the account changed since it was sent; ask for a new one")

    /// Makes a code of `kind` for `user`, stores its digest with the address and password version it is for, and
    /// answers its text for the link.
    func issueCode(_ kind: OneTimeCodeKind, for user: AccountUser, email: String, newEmail: String? = nil)
        async throws(AccountsError) -> String
    {
        let code = try Self.crypto { () throws(CryptoError) in try ActionCode.generate() }
        let at = now()
        let record = OneTimeCodeRecord(
            digest: try Self.crypto { () throws(CryptoError) in try code.digest() }, kind: kind,
            localID: user.localID, email: email, newEmail: newEmail, passwordVersion: user.passwordVersion,
            createdAt: at, expiresAt: at.addingTimeInterval(kind.lifetime))
        try await Self.storing { () throws(StoreError) in try await store.insertCode(record) }
        return code.value.reveal()
    }

    /// The code's record and its user when the code is live for `mode`: present, unexpired, of that kind, for an
    /// enabled user whose address (and, but for a recovery, password) are still those it was issued for. `take`
    /// uses it up; a code refused after being taken stays used.
    private func liveCode(mode: String, code text: String, take: Bool)
        async throws(AccountsError) -> (OneTimeCodeRecord, AccountUser)
    {
        guard let kind = OneTimeCodeKind(rawValue: mode) else {
            throw AccountsError(
                .invalidRequest, "mode is resetPassword, verifyEmail, verifyAndChangeEmail or recoverEmail")
        }
        guard let code = ActionCode(presented: text) else { throw Self.invalidCode }
        let digest = try Self.crypto { () throws(CryptoError) in try code.digest() }
        let at = now()
        let found = try await Self.storing { () throws(StoreError) in
            take ? try await store.takeCode(digest: digest, now: at) : try await store.peekCode(digest: digest, now: at)
        }
        guard let record = found, record.kind == kind, let user = try await storedUser(record.localID) else {
            throw Self.invalidCode
        }
        guard !user.disabled else { throw AccountsError(.userDisabled, "this account is disabled") }
        guard Self.isLive(record, for: user) else { throw Self.invalidCode }
        return (record, user)
    }

    /// Whether `record` still applies to `user` as it is now (docs/ACCOUNTS.md "E-mail actions"). A recovery is
    /// for the address the account moved to and survives a password change: whoever changed the address may have
    /// changed the password too, and the recovery is how the owner gets back in.
    static func isLive(_ record: OneTimeCodeRecord, for user: AccountUser) -> Bool {
        switch record.kind {
        case .recoverEmail:
            return record.newEmail != nil && user.email == record.newEmail
        case .resetPassword, .verifyEmail, .verifyAndChangeEmail:
            return record.passwordVersion == user.passwordVersion && (user.email ?? "") == record.email
        }
    }

    private static func info(_ record: OneTimeCodeRecord, user: AccountUser) -> ActionCodeInfo {
        switch record.kind {
        case .resetPassword, .verifyEmail: ActionCodeInfo(kind: record.kind, email: user.email ?? record.email)
        case .verifyAndChangeEmail: ActionCodeInfo(kind: record.kind, email: record.newEmail ?? "")
        case .recoverEmail: ActionCodeInfo(kind: record.kind, email: record.email)
        }
    }

    /// `password` checked by the policy (`400 weak-password`) and hashed within the client's budget.
    private func newPasswordHash(_ password: String, client: ClientKey) async throws(AccountsError) -> String {
        let normalized: NormalizedPassword
        do {
            normalized = try policy.check(password)
        } catch {
            throw AccountsError(.weakPassword, error.description, details: ["reason": .string(error.reason)])
        }
        return try await hashing { () async throws(CryptoError) in try await hasher.hash(normalized, client: client) }
    }

    /// Writes `user`: `409 email-already-in-use` when another account took its address meanwhile.
    private func update(_ user: AccountUser) async throws(AccountsError) {
        do {
            try await store.updateUser(user)
        } catch {
            if case .constraint("email") = error.kind {
                throw AccountsError(.emailAlreadyInUse, "another account has this e-mail address now")
            }
            throw Self.storeFailure(error)
        }
    }
}
