import AuthHandlerAccounts
import AuthHandlerCrypto
import AuthHandlerHTTP

/// Backend `accounts` (docs/ACCOUNTS.md): a redeemed provider sign-in finds or creates the daemon's own user, and the
/// redemption's `signIn` is `{"localId", "idToken", "refreshToken", "expiresIn", "isNewUser"}` (HTTP-API.md §3.3),
/// with `previousMethodsRemoved: true` when a never-verified password account was taken over. The engine also
/// answers the accounts endpoints (`AccountsRoutes`, HTTP-API.md §3.10).
package final class AccountsBackend: SignInBackend {
    package let engine: AccountsEngine
    /// The mail the accounts send, when `email` is configured.
    package let mail: AccountsMail?
    /// The counters `/metrics` shows.
    package let metrics: AccountsMetrics
    /// `backend.introspectionSecret`: what `POST /__/auth/introspect` requires; nil turns it off.
    package let introspectionSecret: Secret?

    package init(
        engine: AccountsEngine, mail: AccountsMail?, metrics: AccountsMetrics = AccountsMetrics(),
        introspectionSecret: Secret? = nil
    ) {
        self.engine = engine
        self.mail = mail
        self.metrics = metrics
        self.introspectionSecret = introspectionSecret
    }

    package func signIn(_ request: BackendSignInRequest) async throws(BackendError) -> JSONValue? {
        let auth: AccountsEngine.ProviderAuth
        switch request.authType {
        case .linkViaRedirect:
            guard let idToken = request.idToken else { throw .invalidIDToken }
            auth = .link(idToken: idToken)
        case .reauthViaRedirect:
            guard let idToken = request.idToken else { throw .invalidIDToken }
            auth = .reauth(idToken: idToken)
        case .signInViaRedirect:
            auth = .signIn
        }
        let claim = ProviderIdentityClaim(
            providerID: request.providerId, providerUserID: request.profile.id, email: request.profile.email,
            displayName: request.profile.displayName, photoURL: Self.photoURL(request.profile.raw))
        do throws(AccountsError) {
            let grant = try await AccountsMetrics.counted({ metrics.signIn(method: request.providerId, $0) }) {
                () async throws(AccountsError) in
                try await engine.providerSignIn(claim, auth: auth, verifier: request.verifier ?? "", mail: mail)
            }
            return Self.signIn(grant)
        } catch {
            throw BackendError.accounts(
                code: APIError.Code(accounts: error.code), message: error.message, details: error.details)
        }
    }

    /// The redemption of a picker sign-in (HTTP-API.md §3.6): the session of `account`'s user starts now.
    func signIn(_ account: AccountResult) async throws(BackendError) -> JSONValue {
        do throws(AccountsError) {
            let grant = try await engine.startSession(
                localID: account.localID, provider: account.method, authTime: account.authTime,
                isNewUser: account.isNewUser)
            return Self.signIn(grant)
        } catch {
            throw BackendError.accounts(
                code: APIError.Code(accounts: error.code), message: error.message, details: error.details)
        }
    }

    /// The `signIn` member of a redemption, and the body of a password sign-in (HTTP-API.md §3.10).
    package static func signIn(_ grant: AccountsEngine.Grant) -> JSONValue {
        var members: [String: JSONValue] = [
            "localId": .string(grant.user.localID.value), "idToken": .string(grant.idToken.token.reveal()),
            "refreshToken": .string(grant.refreshToken.value.reveal()),
            "expiresIn": .string(String(grant.idToken.expiresIn)), "isNewUser": .bool(grant.isNewUser),
        ]
        for (name, flag) in grant.notes { members[name] = .bool(flag) }
        return .object(members)
    }

    /// The profile picture a provider gave (`picture` in OIDC claims, `avatar_url` at GitHub), when it is https.
    static func photoURL(_ raw: JSONValue) -> String? {
        guard case .object(let fields) = raw else { return nil }
        for name in ["picture", "avatar_url", "profile_image_url_https"] {
            if case .string(let url)? = fields[name], url.hasPrefix("https://"), url.utf8.count <= 2048 { return url }
        }
        return nil
    }
}

extension APIError.Code {
    /// The §5 code of an accounts refusal.
    package init(accounts code: AccountsError.Code) {
        switch code {
        case .userNotFound: self = .notFound
        default: self = APIError.Code(rawValue: code.rawValue) ?? .internalError
        }
    }
}

extension APIError {
    /// The answer to an accounts refusal.
    package init(_ error: AccountsError) {
        self.init(
            APIError.Code(accounts: error.code), error.message, details: error.details,
            retryAfterSeconds: error.retryAfterSeconds)
    }
}
