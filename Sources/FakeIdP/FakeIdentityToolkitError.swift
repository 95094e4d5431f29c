import AuthHandlerCore
import AuthHandlerHTTP
import Foundation

/// A refusal by the fake sign-in backend, answered with Identity Toolkit's 400 error body.
///
/// Identity Toolkit puts its error code first in `message`, optionally followed by ` : ` and a detail
/// (`INVALID_IDP_RESPONSE : ...`); clients match on the code. Request-level errors (API key, JSON syntax)
/// carry `status: INVALID_ARGUMENT` and reason `badRequest`; sign-in errors carry reason `invalid`, no status.
/// See https://cloud.google.com/identity-platform/docs/use-rest-api#section-error-format.
struct IdentityToolkitError: Error, Equatable {
    var message: String
    var reason: String = "invalid"
    /// The HTTP status and `error.code`: 400, or 500 for the fake's own faults.
    var code = 400
    var status: String?

    /// `CODE` or `CODE : detail`.
    init(_ code: String, _ detail: String? = nil) {
        message = detail.map { "\(code) : \($0)" } ?? code
    }

    /// The answer to a missing or unknown `?key=`.
    static let invalidAPIKey: IdentityToolkitError = {
        var error = IdentityToolkitError("API key not valid. Please pass a valid API key.")
        error.reason = "badRequest"
        error.status = "INVALID_ARGUMENT"
        return error
    }()

    /// The answer to a body that is not the JSON object `accounts:signInWithIdp` expects.
    static func invalidJSON(_ detail: String) -> IdentityToolkitError {
        var error = IdentityToolkitError("Invalid JSON payload received. \(detail)")
        error.reason = "badRequest"
        error.status = "INVALID_ARGUMENT"
        return error
    }

    /// A fault of the fake itself (no randomness, signing failed), as Identity Toolkit's 500 `INTERNAL_ERROR`.
    static func internalError(_ detail: String) -> IdentityToolkitError {
        var error = IdentityToolkitError("INTERNAL_ERROR", detail)
        error.code = 500
        error.reason = "backendError"
        error.status = "INTERNAL"
        return error
    }

    /// `{"error": {"code": 400, "message": ..., "errors": [{"message", "domain", "reason"}], "status"?}}`.
    var response: ServerResponse {
        var body: [String: Any] = [
            "code": code,
            "message": message,
            "errors": [["message": message, "domain": "global", "reason": reason]],
        ]
        if let status { body["status"] = status }
        return FakeIdPRouter.json(["error": body], status: code)
    }
}
