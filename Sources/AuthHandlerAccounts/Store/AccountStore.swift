import AuthHandlerStore
import Foundation

/// The accounts' records in one storage protocol (docs/ACCOUNTS.md "Storage"), so that an engine (SQLite now,
/// PostgreSQL later) is a type of its own that `AccountStoreSemanticsTests` runs unchanged.
///
/// Every operation is atomic: one transaction, whose effects another caller sees whole or not at all. The store keeps
/// records and enforces its uniqueness rules; the decisions (who may sign in, link, refresh) are the caller's. It is
/// given digests, never a token, code or pending credential. It also counts, as a ``CounterStore`` over a table of its
/// own, for the accounts' throttles.
///
/// Errors: `.constraint("email")` for a normalised e-mail another user has, `.constraint("identity")` for an identity
/// already linked, `.constraint("provider")` for a second identity of one provider on one user, `.conflict` for a
/// record whose key exists (a `localId`, a session id, a digest), `.notFound` where the named record must exist.
package protocol AccountStore: CounterStore {
    // MARK: Users

    /// Inserts `user` and, when given, its first identity: `.conflict` for a `localId` that exists,
    /// `.constraint("email")`, `.constraint("identity")` (also for an identity whose ``AccountIdentity/localID`` is
    /// not the user's); nothing is inserted when any is refused.
    func insertUser(_ user: AccountUser, identity: AccountIdentity?) async throws(StoreError)

    func user(localID: LocalID) async throws(StoreError) -> AccountUser?

    func user(normalizedEmail: String) async throws(StoreError) -> AccountUser?

    /// Writes the whole record over the stored one with the same ``AccountUser/localID``: `.notFound` for no such
    /// user, `.constraint("email")` for a normalised e-mail another user has.
    func updateUser(_ user: AccountUser) async throws(StoreError)

    /// Reads the user, hands it to `change` and writes what `change` left, in one transaction, so that a write by
    /// another caller in between is neither lost nor overwritten (an operator's command beside a running daemon).
    /// Answers the user as written, nil for no such user; `.constraint("email")` for a normalised e-mail another user
    /// has. `change` must not alter ``AccountUser/localID``: `.constraint("user")` when it does.
    func modifyUser(localID: LocalID, _ change: @Sendable (inout AccountUser) -> Void) async throws(StoreError)
        -> AccountUser?

    /// Deletes the user with its identities, sessions, refresh tokens, codes and pending credentials; false when there
    /// was no such user.
    func deleteUser(localID: LocalID) async throws(StoreError) -> Bool

    /// Up to `limit` users ordered by ``AccountUser/localID``, starting after `after` (nil: from the first).
    func listUsers(after: LocalID?, limit: Int) async throws(StoreError) -> [AccountUser]

    /// Imports users from another system (docs/ACCOUNTS.md "Imported users") in one transaction, never overwriting: a
    /// row whose ``AccountUser/localID`` is stored is skipped whole (its identities too), so importing one file twice
    /// changes nothing and a stale file cannot roll back a password changed since. Every other row is inserted with
    /// its identities, unless any row is refused (``AccountImport/firstRefusalWithin(_:)``, or a new row's
    /// normalised e-mail or identity belongs to a stored user): then nothing is written and the answer names the first
    /// refused row. Sized for 100,000 rows in one call.
    func importUsers(_ batch: [AccountImport]) async throws(StoreError) -> AccountImportResult

    /// A password reset through a mailed link, in one transaction: the new `passwordHash` (and any
    /// ``AccountUser/legacyPasswordHash`` cleared), the password version bumped (so every code issued before dies),
    /// `validSince` set to `at`, every session revoked, every pending credential deleted, the e-mail marked verified
    /// (the link proved it); with `provesAddress` (the address was never verified) every identity deleted too, against
    /// account pre-hijacking. `.notFound` for no such user.
    func resetPassword(localID: LocalID, passwordHash: String, provesAddress: Bool, at: Date) async throws(StoreError)
        -> AccountUser

    /// The pre-hijacking rule (docs/ACCOUNTS.md "Storage", "Take-over"): removes the user's password, an imported one
    /// included (bumping ``AccountUser/passwordVersion``), every identity, code and pending credential, revokes every
    /// session, sets ``AccountUser/validSince`` to `at`, marks the e-mail verified and links `identity` to the user
    /// (whatever its own ``AccountIdentity/localID``); answers the user as it now is. `.notFound` for no such user,
    /// `.constraint("identity")` when another user has `identity`.
    func takeOver(localID: LocalID, identity: AccountIdentity, at: Date) async throws(StoreError) -> AccountUser

    // MARK: Identities

    func identity(providerID: String, providerUserID: String) async throws(StoreError) -> AccountIdentity?

    /// The user's identities, ordered by provider id.
    func identities(of localID: LocalID) async throws(StoreError) -> [AccountIdentity]

    /// The identities of every user whose ``AccountUser/localID`` is from `first` through `last` (byte order, as
    /// ``listUsers(after:limit:)`` pages), ordered by localId then provider id: one query for a page of users, for
    /// `accounts export`.
    func identities(localIDsFrom first: LocalID, through last: LocalID) async throws(StoreError) -> [AccountIdentity]

    /// Links `identity` to its ``AccountIdentity/localID``: `.notFound` for no such user, `.constraint("identity")`
    /// when any user (this one included) has it, `.constraint("provider")` when the user has one of that provider.
    func linkIdentity(_ identity: AccountIdentity) async throws(StoreError)

    /// Removes the user's identity of `providerID`; false when it had none.
    func unlinkIdentity(localID: LocalID, providerID: String) async throws(StoreError) -> Bool

    // MARK: Sessions and refresh tokens

    /// Inserts a session with the first refresh token of its family: `.notFound` for no such user, `.conflict` for a
    /// session id or digest that exists, `.constraint("session")` for a token whose ``RefreshTokenRecord/sessionID``
    /// is not the session's.
    func insertSession(_ session: AccountSession, firstToken: RefreshTokenRecord) async throws(StoreError)

    func session(id: String) async throws(StoreError) -> AccountSession?

    /// Marks the session revoked at `at`; false when there is no such session or it was revoked already.
    func revokeSession(id: String, at: Date) async throws(StoreError) -> Bool

    /// Marks every live session of the user revoked at `at` but `except`; answers how many it revoked.
    func revokeSessions(of localID: LocalID, except: String?, at: Date) async throws(StoreError) -> Int

    /// Marks the session ``AccountSession/cookieBound`` (its tokens live in a browser's cookie); `.notFound` for no
    /// such session.
    func bindSessionToCookie(id: String) async throws(StoreError)

    /// How many sessions of the user are live: not revoked, refreshed at or after `idleSince`, signed in at or after
    /// `signedInSince`, and with an `auth_time` at or after the user's ``AccountUser/validSince`` (the checks of a
    /// refresh, docs/ACCOUNTS.md "Refresh tokens and sessions"). 0 for no such user.
    func liveSessionCount(of localID: LocalID, idleSince: Date, signedInSince: Date) async throws(StoreError) -> Int

    /// Sets the session's `auth_time` (a re-authentication); `.notFound` for no such session.
    func setAuthTime(sessionID: String, _ authTime: Date) async throws(StoreError)

    func refreshToken(digest: [UInt8]) async throws(StoreError) -> RefreshTokenRecord?

    /// Fixes the token's one successor (docs/ACCOUNTS.md "Refresh tokens and sessions"): when it has none, marks it
    /// used at `at`, stores the successor (same session, issued `at`) with `sealedSuccessor` on the token, sets the
    /// session's ``AccountSession/lastRefreshAt`` to `at` (in the same transaction: one commit per refresh), and
    /// answers `.rotated`; when it has one, changes nothing and answers `.alreadyRotated`. Of concurrent callers
    /// exactly one rotates. `.notFound` for an unknown digest, `.conflict` for a successor digest that exists.
    func rotateRefreshToken(digest: [UInt8], successorDigest: [UInt8], sealedSuccessor: [UInt8], at: Date)
        async throws(StoreError) -> RefreshTokenRotation

    // MARK: One-time codes and pending credentials

    /// `.notFound` for no such user, `.conflict` for a digest that exists.
    func insertCode(_ code: OneTimeCodeRecord) async throws(StoreError)

    /// The code unless absent or expired at `now`, leaving it usable (a GET of an action page never uses a code).
    func peekCode(digest: [UInt8], now: Date) async throws(StoreError) -> OneTimeCodeRecord?

    /// Removes and answers the code unless absent or expired at `now`: of concurrent callers one gets it.
    func takeCode(digest: [UInt8], now: Date) async throws(StoreError) -> OneTimeCodeRecord?

    /// Removes the user's codes; answers how many.
    func deleteCodes(of localID: LocalID) async throws(StoreError) -> Int

    /// `.notFound` for no such user, `.conflict` for a digest that exists.
    func insertPendingCredential(_ credential: PendingCredentialRecord) async throws(StoreError)

    /// Removes and answers the credential unless absent or expired at `now`: of concurrent callers one gets it.
    func takePendingCredential(digest: [UInt8], now: Date) async throws(StoreError) -> PendingCredentialRecord?

    /// Removes the user's pending credentials; answers how many.
    func deletePendingCredentials(of localID: LocalID) async throws(StoreError) -> Int

    // MARK: Expiry

    /// Removes what has expired at `now` (codes, pending credentials, counters) and the sessions that ended, with
    /// their refresh tokens: those revoked, idle since before `idleSince`, or signed in before `signedInBefore`.
    /// Answers the number of records removed (a session's tokens not counted).
    func sweep(now: Date, idleSince: Date, signedInBefore: Date) async throws(StoreError) -> Int

    // MARK: Readiness

    /// Why the store cannot serve now (a database server that does not answer), or nil: what `/readyz` reports
    /// (HTTP-API.md, OPERATIONS.md). A local file has nothing to report.
    func healthProblem() async -> String?
}
