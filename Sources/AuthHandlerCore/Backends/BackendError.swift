import AuthHandlerHTTP

/// Why a backend did not sign the user in, mapped in one place to the HTTP status and error code of
/// `POST /__/auth/result` (HTTP-API.md §3.3).
///
/// Messages (`description`) never carry a token, secret, API key, e-mail address or MFA credential; what the
/// app needs to continue (`email`, `mfaPendingCredential`, `mfaInfo`) is in `details`, for the JSON error body.
package enum BackendError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Another account has this identity's e-mail (Identity Toolkit `needConfirmation`): sign in with one of
    /// `verifiedProviders`, then link. 409 `account-exists-with-different-credential`.
    case accountExistsWithDifferentCredential(email: String?, providerId: String, verifiedProviders: [String])
    /// The IdP identity already belongs to another account (`FEDERATED_USER_ID_ALREADY_LINKED`).
    /// 409 `credential-already-in-use`.
    case credentialAlreadyInUse(email: String?, providerId: String)
    /// The account has a second factor; finish with `mfaPendingCredential`. 401 `second-factor-required`.
    case secondFactorRequired(mfaPendingCredential: String, mfaInfo: JSONValue)
    /// The account is disabled (`USER_DISABLED`). 403 `user-disabled`.
    case userDisabled
    /// Linking failed because the IdP's e-mail belongs to another account (`EMAIL_EXISTS`).
    /// 409 `email-already-in-use`.
    case emailExists(email: String?)
    /// The app's `idToken` for link or reauth is missing, invalid or expired. 401 `invalid-id-token`.
    case invalidIDToken
    /// The backend could not be reached or asked to retry (timeout, transport error, 5xx, 429). 502
    /// `backend-error`; the result code stays redeemable.
    case transient(reason: String)
    /// The backend refused the request for another reason (other 4xx, unreadable answer). 502 `backend-error`.
    case rejected(reason: String)
    /// The accounts backend's own answer (docs/ACCOUNTS.md "Linking"): its §5 code, message and members as they are;
    /// `unavailable` (the database, a full hashing queue) leaves the code redeemable.
    case accounts(code: APIError.Code, message: String, details: [String: JSONValue])

    /// The HTTP status `POST /__/auth/result` answers with.
    package var httpStatus: Int { code.status }

    /// The error code of HTTP-API.md §5.
    package var code: APIError.Code {
        switch self {
        case .accountExistsWithDifferentCredential: .accountExistsWithDifferentCredential
        case .credentialAlreadyInUse: .credentialAlreadyInUse
        case .secondFactorRequired: .secondFactorRequired
        case .userDisabled: .userDisabled
        case .emailExists: .emailAlreadyInUse
        case .invalidIDToken: .invalidIDToken
        case .transient, .rejected: .backendError
        case .accounts(let code, _, _): code
        }
    }

    /// True when trying again later may succeed, so the result code must stay redeemable.
    package var isTransient: Bool {
        switch self {
        case .transient: true
        case .accounts(let code, _, _): code == .unavailable || code == .internalError
        default: false
        }
    }

    /// Extra members of the JSON error object: `email`, `verifiedProviders`, `mfaPendingCredential`, `mfaInfo`.
    package var details: [String: JSONValue] {
        switch self {
        case .accountExistsWithDifferentCredential(let email, _, let verifiedProviders):
            [
                "email": email.map(JSONValue.string) ?? .null,
                "verifiedProviders": .array(verifiedProviders.map { .string($0) }),
            ]
        case .credentialAlreadyInUse(let email, _), .emailExists(let email):
            ["email": email.map(JSONValue.string) ?? .null]
        case .secondFactorRequired(let pending, let info):
            ["mfaPendingCredential": .string(pending), "mfaInfo": info]
        case .accounts(_, _, let details): details
        case .userDisabled, .invalidIDToken, .transient, .rejected:
            [:]
        }
    }

    package var description: String {
        switch self {
        case .accountExistsWithDifferentCredential(_, let providerId, let verifiedProviders):
            let with = verifiedProviders.isEmpty ? "another provider" : verifiedProviders.joined(separator: ", ")
            return "an account with the \(providerId) identity's e-mail already exists; sign in with \(with) "
                + "and link \(providerId) to it"
        case .credentialAlreadyInUse(_, let providerId):
            return "this \(providerId) identity is already linked to another account; sign in with it instead"
        case .secondFactorRequired:
            return "the account requires a second factor; complete it with mfaPendingCredential"
        case .userDisabled:
            return "the account has been disabled by an administrator"
        case .emailExists:
            return "the identity's e-mail is already used by another account; sign in to that account and link"
        case .invalidIDToken:
            return "the idToken for link or reauth is missing, invalid or expired; send the signed-in user's "
                + "current ID token"
        case .transient(let reason):
            return "the sign-in backend is unavailable, try again: \(reason)"
        case .rejected(let reason):
            return "the sign-in backend refused the request: \(reason)"
        case .accounts(_, let message, _):
            return message
        }
    }
}
