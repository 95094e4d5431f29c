/// An error the handler answers with: the HTTP status, the contract's error code, and a message that says
/// what went wrong and what to do. Every failure of the HTTP API is mapped to one of these, here.
public struct HandlerError: Error, Sendable, Equatable, CustomStringConvertible {
    public let status: Int
    /// The contract's code, e.g. `invalid-provider`.
    public let code: String
    /// Safe for users and logs: never a token, secret, code or state value.
    public let message: String
    /// Extra members of the JSON error object (`email`, `credential`, `mfaPendingCredential`, `mfaInfo`).
    public let details: [String: JSONValue]
    /// Seconds for a `Retry-After` header (`409 redemption-in-progress`, `429 too-many-requests`).
    public let retryAfterSeconds: Int?

    public init(
        status: Int, code: String, message: String, details: [String: JSONValue] = [:], retryAfterSeconds: Int? = nil
    ) {
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.retryAfterSeconds = retryAfterSeconds
    }

    public var description: String { "\(status) \(code): \(message)" }

    public static func invalidProvider(_ message: String) -> HandlerError {
        HandlerError(status: 400, code: "invalid-provider", message: message)
    }

    public static func unauthorizedRedirectURL(_ message: String) -> HandlerError {
        HandlerError(status: 400, code: "unauthorized-redirect-url", message: message)
    }

    public static func reservedCustomParameter(_ message: String) -> HandlerError {
        HandlerError(status: 400, code: "reserved-custom-parameter", message: message)
    }

    public static func invalidRequest(_ message: String) -> HandlerError {
        HandlerError(status: 400, code: "invalid-request", message: message)
    }

    public static func unsupportedAuthType(_ message: String) -> HandlerError {
        HandlerError(status: 400, code: "unsupported-auth-type", message: message)
    }

    public static func invalidState(_ message: String) -> HandlerError {
        HandlerError(status: 400, code: "invalid-state", message: message)
    }

    public static func invalidResultCode(_ message: String) -> HandlerError {
        HandlerError(status: 400, code: "invalid-result-code", message: message)
    }

    /// The IdP failed while starting a sign-in (e.g. the OAuth 1.0a request-token call).
    public static func providerError(_ message: String) -> HandlerError {
        HandlerError(status: 502, code: "provider-error", message: message)
    }

    public static func backendError(_ message: String) -> HandlerError {
        HandlerError(status: 502, code: "backend-error", message: message)
    }

    public static func unavailable(_ message: String) -> HandlerError {
        HandlerError(status: 503, code: "unavailable", message: message)
    }

    public static func tooManyRequests(_ message: String, retryAfterSeconds: Int) -> HandlerError {
        HandlerError(status: 429, code: "too-many-requests", message: message, retryAfterSeconds: retryAfterSeconds)
    }
    public static func notFound(_ message: String) -> HandlerError {
        HandlerError(status: 404, code: "not-found", message: message)
    }

    public static func methodNotAllowed(_ message: String) -> HandlerError {
        HandlerError(status: 405, code: "method-not-allowed", message: message)
    }
}
