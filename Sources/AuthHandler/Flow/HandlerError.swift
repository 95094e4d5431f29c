/// An error the handler answers with: the HTTP status, the contract's error code, and a message that says
/// what went wrong and what to do. Every failure of the HTTP API is mapped to one of these, here.
public struct HandlerError: Error, Sendable, Equatable, CustomStringConvertible {
    public let status: Int
    /// The contract's code, e.g. `invalid-provider`.
    public let code: Code
    /// Safe for users and logs: never a token, secret, code or state value.
    public let message: String
    /// Extra members of the JSON error object (`email`, `credential`, `mfaPendingCredential`, `mfaInfo`).
    public let details: [String: JSONValue]
    /// Seconds for a `Retry-After` header (`409 redemption-in-progress`, `429 too-many-requests`).
    public let retryAfterSeconds: Int?

    public init(
        status: Int, code: Code, message: String, details: [String: JSONValue] = [:], retryAfterSeconds: Int? = nil
    ) {
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.retryAfterSeconds = retryAfterSeconds
    }

    public var description: String { "\(status) \(code.rawValue): \(message)" }

    public static func invalidProvider(_ message: String) -> HandlerError {
        HandlerError(status: 400, code: .invalidProvider, message: message)
    }

    public static func unauthorizedRedirectURL(_ message: String) -> HandlerError {
        HandlerError(status: 400, code: .unauthorizedRedirectURL, message: message)
    }

    public static func reservedCustomParameter(_ message: String) -> HandlerError {
        HandlerError(status: 400, code: .reservedCustomParameter, message: message)
    }

    public static func invalidRequest(_ message: String) -> HandlerError {
        HandlerError(status: 400, code: .invalidRequest, message: message)
    }

    public static func unsupportedAuthType(_ message: String) -> HandlerError {
        HandlerError(status: 400, code: .unsupportedAuthType, message: message)
    }

    public static func invalidState(_ message: String) -> HandlerError {
        HandlerError(status: 400, code: .invalidState, message: message)
    }

    public static func invalidResultCode(_ message: String) -> HandlerError {
        HandlerError(status: 400, code: .invalidResultCode, message: message)
    }

    /// The IdP failed while starting a sign-in (e.g. the OAuth 1.0a request-token call).
    public static func providerError(_ message: String) -> HandlerError {
        HandlerError(status: 502, code: .providerError, message: message)
    }

    public static func backendError(_ message: String) -> HandlerError {
        HandlerError(status: 502, code: .backendError, message: message)
    }

    /// A failure of the handler itself (random generator, sealing, encoding, storing a result).
    public static func internalError(_ message: String) -> HandlerError {
        HandlerError(status: 500, code: .internalError, message: message)
    }

    public static func unavailable(_ message: String) -> HandlerError {
        HandlerError(status: 503, code: .unavailable, message: message)
    }

    public static func tooManyRequests(_ message: String, retryAfterSeconds: Int) -> HandlerError {
        HandlerError(status: 429, code: .tooManyRequests, message: message, retryAfterSeconds: retryAfterSeconds)
    }

    public static func notFound(_ message: String) -> HandlerError {
        HandlerError(status: 404, code: .notFound, message: message)
    }

    public static func methodNotAllowed(_ message: String) -> HandlerError {
        HandlerError(status: 405, code: .methodNotAllowed, message: message)
    }
}
