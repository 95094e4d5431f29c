extension APIError {
    /// The error codes of HTTP-API.md §5: the raw value is the documented string, as it appears in the JSON
    /// error object, the HTML error page and the `error` added to `redirectUrl`.
    package enum Code: String, Sendable, Hashable, CaseIterable {
        case invalidRequest = "invalid-request"
        case invalidProvider = "invalid-provider"
        case unauthorizedRedirectURL = "unauthorized-redirect-url"
        case unsupportedAuthType = "unsupported-auth-type"
        case reservedCustomParameter = "reserved-custom-parameter"
        case invalidState = "invalid-state"
        case invalidResultCode = "invalid-result-code"
        case invalidIDToken = "invalid-id-token"
        case secondFactorRequired = "second-factor-required"
        case userDisabled = "user-disabled"
        case userCancelled = "user-cancelled"
        case navigationRequired = "navigation-required"
        /// The provider cannot sign the user in without their interaction (`prompt=none` answered with
        /// `interaction_required`, `login_required`, `consent_required` or `account_selection_required`, OIDC Core
        /// §3.1.2.6); the IdP's `error` is in the description.
        case interactionRequired = "interaction-required"
        case notFound = "not-found"
        case methodNotAllowed = "method-not-allowed"
        case accountExistsWithDifferentCredential = "account-exists-with-different-credential"
        case credentialAlreadyInUse = "credential-already-in-use"
        case emailAlreadyInUse = "email-already-in-use"
        case redemptionInProgress = "redemption-in-progress"
        case tooManyRequests = "too-many-requests"
        case internalError = "internal-error"
        case providerError = "provider-error"
        case backendError = "backend-error"
        case unavailable = "unavailable"
        // The accounts backend's (docs/ACCOUNTS.md, HTTP-API.md §3.10).
        case invalidEmail = "invalid-email"
        case weakPassword = "weak-password"
        case invalidCredential = "invalid-credential"
        case requiresRecentLogin = "requires-recent-login"
        case emailNotVerified = "email-not-verified"
        case providerAlreadyLinked = "provider-already-linked"
        case userMismatch = "user-mismatch"
        case lastSignInMethod = "last-sign-in-method"
        case invalidPendingCredential = "invalid-pending-credential"
        case invalidActionCode = "invalid-action-code"
        case operationNotAllowed = "operation-not-allowed"

        /// The HTTP status the code is answered with (HTTP-API.md §5). `user-cancelled`, `interaction-required`,
        /// `internal-error` and `provider-error` after a callback's state is recorded reach the app as an `error` on
        /// a 303 to `redirectUrl` instead (HTTP-API.md §3.2); 403 and 401 are the `--once` done page's statuses for
        /// `user-cancelled` and `interaction-required`.
        package var status: Int {
            switch self {
            case .invalidRequest, .invalidProvider, .unauthorizedRedirectURL, .unsupportedAuthType,
                .reservedCustomParameter, .invalidState, .invalidResultCode, .invalidEmail, .weakPassword,
                .invalidCredential, .lastSignInMethod, .invalidPendingCredential, .invalidActionCode:
                400
            case .invalidIDToken, .secondFactorRequired, .interactionRequired, .requiresRecentLogin: 401
            case .userDisabled, .userCancelled, .navigationRequired, .emailNotVerified, .userMismatch,
                .operationNotAllowed:
                403
            case .notFound: 404
            case .methodNotAllowed: 405
            case .accountExistsWithDifferentCredential, .credentialAlreadyInUse, .emailAlreadyInUse,
                .redemptionInProgress, .providerAlreadyLinked:
                409
            case .tooManyRequests: 429
            case .internalError: 500
            case .providerError, .backendError: 502
            case .unavailable: 503
            }
        }
    }
}
