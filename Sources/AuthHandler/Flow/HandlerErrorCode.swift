extension HandlerError {
    /// The contract's error codes (HTTP-API.md §5): the raw value is the documented string, as it appears in the JSON
    /// error object, the HTML error page and the `error` added to `redirectUrl`.
    public enum Code: String, Sendable, Hashable, CaseIterable {
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
    }
}
