import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerStore
import Foundation

/// Who a provider sign-in is (issue 25 §2, docs/ACCOUNTS.md "Linking"): one account per e-mail.
extension AccountsEngine {
    /// What the sign-in was started for (HTTP-API.md §3.1 `authType`), with the app's ID token for link and reauth.
    package enum ProviderAuth: Sendable {
        case signIn
        case link(idToken: String)
        case reauth(idToken: String)
    }

    /// Signs in, links or re-authenticates with a provider's identity. `verifier` is the redemption's (HTTP-API.md
    /// §3.3), which a pending credential is bound to. A link that adds the identity tells the account's address
    /// through `mail` (a link of an identity the account has already changes nothing and mails nothing).
    package func providerSignIn(
        _ claim: ProviderIdentityClaim, auth: ProviderAuth, verifier: String, mail: AccountsMail? = nil
    ) async throws(AccountsError) -> Grant {
        switch auth {
        case .signIn: return try await signInWithProvider(claim, verifier: verifier, attempt: 1)
        case .link(let token):
            let caller = try await authenticate(token, recency: .recent)
            try Self.requireVerifiedForLinking(caller.user)
            if try await link(claim, to: caller.user) {
                await mail?.identityLinked(caller.user, providerID: claim.providerID)
            }
            return try await startSession(for: caller.user, provider: claim.providerID, isNewUser: false)
        case .reauth(let token):
            let caller = try await authenticate(token)
            let identity = try await Self.storing { () throws(StoreError) in
                try await store.identity(providerID: claim.providerID, providerUserID: claim.providerUserID)
            }
            guard identity?.localID == caller.user.localID else {
                throw AccountsError(
                    .userMismatch, "this \(claim.providerID) account is not linked to the signed-in user")
            }
            return try await startSession(for: caller.user, provider: claim.providerID, isNewUser: false)
        }
    }

    private func signInWithProvider(_ claim: ProviderIdentityClaim, verifier: String, attempt: Int)
        async throws(AccountsError) -> Grant
    {
        if let known = try await Self.storing({ () throws(StoreError) in
            try await store.identity(providerID: claim.providerID, providerUserID: claim.providerUserID)
        }) {
            guard
                let user = try await Self.storing({ () throws(StoreError) in
                    try await store.user(localID: known.localID)
                })
            else { throw AccountsError(.internalError, "an identity names a user that does not exist") }
            guard !user.disabled else { throw AccountsError(.userDisabled, "this account is disabled") }
            return try await startSession(for: user, provider: claim.providerID, isNewUser: false)
        }
        // An address that does not parse is not used to match or store: the person gets an account without one.
        let email = claim.email.flatMap { try? EmailAddress(parsing: $0) }
        if let email,
            let existing = try await Self.storing({ () throws(StoreError) in
                try await store.user(normalizedEmail: email.normalized)
            })
        {
            return try await signInToExisting(existing, claim: claim, verifier: verifier)
        }
        let at = now()
        let localID = try Self.crypto { () throws(CryptoError) in try LocalID.generate() }
        let user = AccountUser(
            localID: localID, email: email?.given, normalizedEmail: email?.normalized, emailVerified: email != nil,
            displayName: claim.displayName, photoURL: claim.photoURL, createdAt: at, validSince: at)
        do {
            try await store.insertUser(user, identity: identity(claim, for: localID, at: at))
        } catch {
            // Another sign-in took the address or the identity meanwhile: decide again, once.
            if case .constraint = error.kind, attempt == 1 {
                return try await signInWithProvider(claim, verifier: verifier, attempt: 2)
            }
            throw Self.storeFailure(error)
        }
        return try await startSession(for: user, provider: claim.providerID, isNewUser: true)
    }

    /// An unknown identity whose vouched e-mail an account has: a verified account answers
    /// `account-exists-with-different-credential` with a pending credential; a password account whose address was
    /// never verified is taken over by the provider's verified identity (Firebase's and Supabase's defence against
    /// account pre-hijacking): its password and every other identity removed, every session revoked.
    private func signInToExisting(_ existing: AccountUser, claim: ProviderIdentityClaim, verifier: String)
        async throws(AccountsError) -> Grant
    {
        guard !existing.disabled else { throw AccountsError(.userDisabled, "this account is disabled") }
        if existing.emailVerified {
            throw try await accountExists(existing, claim: claim, verifier: verifier)
        }
        let at = now()
        let user = try await Self.storing { () throws(StoreError) in
            try await store.takeOver(
                localID: existing.localID, identity: identity(claim, for: existing.localID, at: at), at: at)
        }
        var grant = try await startSession(for: user, provider: claim.providerID, isNewUser: false)
        grant.notes["previousMethodsRemoved"] = true
        return grant
    }

    /// The `409` with the account's methods and a pending credential bound to `verifier`.
    private func accountExists(_ existing: AccountUser, claim: ProviderIdentityClaim, verifier: String)
        async throws(AccountsError) -> AccountsError
    {
        let identities = try await Self.storing { () throws(StoreError) in
            try await store.identities(of: existing.localID)
        }
        let methods = (existing.hasPassword ? ["password"] : []) + identities.map(\.providerID)
        let at = now()
        let id = try Self.crypto { () throws(CryptoError) in try SecureRandom.base64URLString(byteCount: 32) }
        let pending = PendingCredential(
            identity: claim, localID: existing.localID,
            verifierDigest: try Self.crypto { () throws(CryptoError) in try SHA256.hash(Array(verifier.utf8)) },
            issuedAt: at, expiresAt: at.addingTimeInterval(settings.pendingCredentialLifetime), id: id)
        let digest = try Self.crypto { () throws(CryptoError) in try SHA256.hash(Array(id.utf8)) }
        try await Self.storing { () throws(StoreError) in
            try await store.insertPendingCredential(
                PendingCredentialRecord(digest: digest, localID: existing.localID, expiresAt: pending.expiresAt))
        }
        let sealed = try Self.crypto { () throws(CryptoError) in try pending.sealed(key: pendingCredentialKey) }
        return AccountsError(
            .accountExistsWithDifferentCredential,
            "an account with this e-mail address exists; sign in to it with one of its methods, then link "
                + "this credential with POST /__/auth/user/link",
            details: [
                "email": .string(existing.email ?? ""), "verifiedProviders": .array(methods.map(JSONValue.string)),
                "pendingCredential": .string(sealed),
            ])
    }

    /// Links a pending credential to the caller (`POST /__/auth/user/link`): only with the verifier of the
    /// redemption that produced it, only to its account, only by a session signed in after it was issued, once.
    /// When it adds the identity, `mail` tells the account's address; a second pending credential for an identity
    /// the account already has is used up, answered as a success, and mails nothing.
    package func linkPending(
        _ caller: Caller, pendingCredential text: String, verifier: String, mail: AccountsMail? = nil
    ) async throws(AccountsError) -> AccountUser {
        try await linkPending(
            to: caller.user, authTime: caller.session.authTime, pendingCredential: text, verifier: verifier,
            mail: mail)
    }

    /// ``linkPending(_:pendingCredential:verifier:)`` for `user`, who signed in at `authTime` without a session yet:
    /// the picker's account-exists flow (HTTP-API.md §3.6), which links before the app redeems its result.
    package func linkPending(
        to user: AccountUser, authTime: Date, pendingCredential text: String, verifier: String,
        mail: AccountsMail? = nil
    ) async throws(AccountsError) -> AccountUser {
        let invalid = AccountsError(
            .invalidPendingCredential, "the pending credential is not valid, expired, used, or not this sign-in's")
        guard let pending = PendingCredential(opening: text, key: pendingCredentialKey), pending.expiresAt > now()
        else { throw invalid }
        let digest = try Self.crypto { () throws(CryptoError) in try SHA256.hash(Array(verifier.utf8)) }
        guard ConstantTime.equals(digest, pending.verifierDigest) else { throw invalid }
        guard pending.localID == user.localID else {
            throw AccountsError(.userMismatch, "the pending credential belongs to another account")
        }
        guard authTime >= pending.issuedAt.addingTimeInterval(-1) else {
            throw AccountsError(
                .requiresRecentLogin, "sign in to the account after the pending credential was issued, then link it")
        }
        try Self.requireVerifiedForLinking(user)
        let idDigest = try Self.crypto { () throws(CryptoError) in try SHA256.hash(Array(pending.id.utf8)) }
        guard
            try await Self.storing({ () throws(StoreError) in
                try await store.takePendingCredential(digest: idDigest, now: now())
            }) != nil
        else { throw invalid }
        if try await link(pending.identity, to: user) {
            await mail?.identityLinked(user, providerID: pending.identity.providerID)
        }
        return user
    }

    /// Adds `claim` to `user`, and says whether it did: false when the user has it already; `409
    /// credential-already-in-use` when another user has it, `409 provider-already-linked` when the user has another
    /// identity of that provider.
    func link(_ claim: ProviderIdentityClaim, to user: AccountUser) async throws(AccountsError) -> Bool {
        if let existing = try await Self.storing({ () throws(StoreError) in
            try await store.identity(providerID: claim.providerID, providerUserID: claim.providerUserID)
        }) {
            if existing.localID == user.localID { return false }
            throw AccountsError(
                .credentialAlreadyInUse, "this \(claim.providerID) account is linked to another user")
        }
        do {
            try await store.linkIdentity(identity(claim, for: user.localID, at: now()))
            return true
        } catch {
            switch error.kind {
            case .constraint("provider"):
                throw AccountsError(
                    .providerAlreadyLinked, "the user has a \(claim.providerID) account linked already; unlink it first"
                )
            case .constraint("identity"):
                throw AccountsError(
                    .credentialAlreadyInUse, "this \(claim.providerID) account is linked to another user")
            default: throw Self.storeFailure(error)
            }
        }
    }

    /// `403 email-not-verified` for a password account whose address was never verified: whoever registered
    /// someone else's address must not be able to leave a way back in (issue 25 §2.2).
    static func requireVerifiedForLinking(_ user: AccountUser) throws(AccountsError) {
        if user.email != nil, !user.emailVerified {
            throw AccountsError(
                .emailNotVerified, "verify the account's e-mail address before linking or changing it")
        }
    }

    private func identity(_ claim: ProviderIdentityClaim, for localID: LocalID, at: Date) -> AccountIdentity {
        AccountIdentity(
            providerID: claim.providerID, providerUserID: claim.providerUserID, localID: localID, email: claim.email,
            displayName: claim.displayName, createdAt: at)
    }
}
