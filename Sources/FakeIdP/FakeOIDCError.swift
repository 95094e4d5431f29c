import AuthHandlerCore
import AuthHandlerHTTP
import Foundation

/// An OAuth 2 error the fake OIDC provider answers (RFC 6749 §4.1.2.1, §5.2; RFC 6750 §3.1).
struct FakeOIDCError: Error, Equatable {
    /// The `error` code, e.g. `invalid_grant`.
    var code: String
    /// The `error_description`: what failed and what to send instead.
    var description: String

    /// The `error` codes the fake answers by itself; a queued failure (`FakeFailureKind.oauthError`) may name any other.
    enum Code: String {
        case invalidRequest = "invalid_request"
        case invalidClient = "invalid_client"
        case invalidGrant = "invalid_grant"
        case invalidScope = "invalid_scope"
        case accessDenied = "access_denied"
        case serverError = "server_error"
    }

    /// The error as the token endpoint answers it: JSON, 401 with a Basic challenge for `invalid_client`,
    /// 400 otherwise (RFC 6749 §5.2), 500 for `server_error`.
    var tokenResponse: ServerResponse {
        let status =
            switch Code(rawValue: code) {
            case .invalidClient: 401
            case .serverError: 500
            default: 400
            }
        var response = FakeIdPRouter.json(["error": code, "error_description": description], status: status)
        if status == 401 {
            // RFC 7235 §3.1: a 401 must carry a challenge; RFC 6749 §5.2 names the scheme the client tried.
            response.headers.set(name: "WWW-Authenticate", value: #"Basic realm="fake-idp""#)
        }
        response.headers.set(name: "Cache-Control", value: "no-store")
        response.headers.set(name: "Pragma", value: "no-cache")
        return response
    }

    /// The `error` and `error_description` fields of an authorization error response.
    var redirectFields: [URLFormField] {
        [URLFormField(name: "error", value: code), URLFormField(name: "error_description", value: description)]
    }
}

extension FakeOIDCError {
    /// An error with one of the fake's own codes; declared apart so that the memberwise initialiser stays.
    init(_ code: Code, _ description: String) {
        self.init(code: code.rawValue, description: description)
    }
}
