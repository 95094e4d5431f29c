import AuthHandlerHTTP

/// A refusal of an accounts operation: one of HTTP-API.md §5's codes, a message safe for users and logs (never a
/// password, token or code), extra members of the JSON error object, and the seconds of a `Retry-After`.
///
/// The accounts layer knows no HTTP: the service maps `code` to its status in one place (`APIError.Code`).
package struct AccountsError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Code: String, Sendable, CaseIterable {
        case invalidRequest = "invalid-request"
        case invalidEmail = "invalid-email"
        case weakPassword = "weak-password"
        case emailAlreadyInUse = "email-already-in-use"
        case invalidCredential = "invalid-credential"
        case userDisabled = "user-disabled"
        case userNotFound = "user-not-found"
        case invalidIDToken = "invalid-id-token"
        case requiresRecentLogin = "requires-recent-login"
        case emailNotVerified = "email-not-verified"
        case accountExistsWithDifferentCredential = "account-exists-with-different-credential"
        case credentialAlreadyInUse = "credential-already-in-use"
        case providerAlreadyLinked = "provider-already-linked"
        case userMismatch = "user-mismatch"
        case lastSignInMethod = "last-sign-in-method"
        case invalidPendingCredential = "invalid-pending-credential"
        case invalidActionCode = "invalid-action-code"
        case unauthorizedRedirectURL = "unauthorized-redirect-url"
        case operationNotAllowed = "operation-not-allowed"
        case notFound = "not-found"
        case tooManyRequests = "too-many-requests"
        case unavailable = "unavailable"
        case internalError = "internal-error"
    }

    package let code: Code
    package let message: String
    /// Extra members of the error object (`email`, `verifiedProviders`, `pendingCredential`).
    package let details: [String: JSONValue]
    package let retryAfterSeconds: Int?

    package init(
        _ code: Code, _ message: String, details: [String: JSONValue] = [:], retryAfterSeconds: Int? = nil
    ) {
        self.code = code
        self.message = message
        self.details = details
        self.retryAfterSeconds = retryAfterSeconds
    }

    package var description: String { "\(code.rawValue): \(message)" }
}
