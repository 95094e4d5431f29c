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

    /// An error with `code`'s own status (HTTP-API.md §5), unless `status` is given: the `--once` done page
    /// answers every code it shows with its own status (HTTP-API.md §1.4).
    public init(
        _ code: Code, _ message: String, details: [String: JSONValue] = [:], retryAfterSeconds: Int? = nil,
        status: Int? = nil
    ) {
        self.status = status ?? code.status
        self.code = code
        self.message = message
        self.details = details
        self.retryAfterSeconds = retryAfterSeconds
    }

    public var description: String { "\(status) \(code.rawValue): \(message)" }
}
