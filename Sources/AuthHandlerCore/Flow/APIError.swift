import AuthHandlerHTTP

/// An error the handler answers with: the HTTP status, the error code of HTTP-API.md §5, and a message that says
/// what went wrong and what to do. Every failure of the HTTP API is mapped to one of these, here.
package struct APIError: Error, Sendable, Equatable, CustomStringConvertible {
    package let status: Int
    /// The code of HTTP-API.md §5, e.g. `invalid-provider`.
    package let code: Code
    /// Safe for users and logs: never a token, secret, code or state value.
    package let message: String
    /// Extra members of the JSON error object (`email`, `credential`, `mfaPendingCredential`, `mfaInfo`).
    package let details: [String: JSONValue]
    /// Seconds for a `Retry-After` header (`409 redemption-in-progress`, `429 too-many-requests`).
    package let retryAfterSeconds: Int?

    /// An error with `code`'s own status (HTTP-API.md §5), unless `status` is given: the `--once` done page
    /// answers every code it shows with its own status (HTTP-API.md §1.4).
    package init(
        _ code: Code, _ message: String, details: [String: JSONValue] = [:], retryAfterSeconds: Int? = nil,
        status: Int? = nil
    ) {
        self.status = status ?? code.status
        self.code = code
        self.message = message
        self.details = details
        self.retryAfterSeconds = retryAfterSeconds
    }

    package var description: String { "\(status) \(code.rawValue): \(message)" }
}
