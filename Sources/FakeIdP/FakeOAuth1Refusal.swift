import AuthHandlerCore
import AuthHandlerHTTP
import AuthHandlerProtocols
import Foundation

/// Why the fake IdP refused an OAuth 1.0a request: the status, the check that failed, and what to do.
///
/// RFC 5849 §3.2 sets the statuses: 400 for a malformed, incomplete or unsupported request, 401 for an
/// unknown consumer, a wrong signature, a bad token or verifier, a stale timestamp or a used nonce.
/// Messages never hold a secret, a signature or a verifier.
struct FakeOAuth1Refusal: Error {
    /// 400, 401, or 500 when the fake IdP itself failed.
    var status: Int
    /// The name of the check that failed, e.g. `signature`, `timestamp`, `nonce`, `verifier`.
    var check: String
    /// What was wrong and what to do.
    var message: String

    /// A malformed or incomplete request (400).
    static func malformed(_ check: String, _ message: String) -> FakeOAuth1Refusal {
        FakeOAuth1Refusal(status: 400, check: check, message: message)
    }

    /// A credential, signature, token, verifier or replay problem (401).
    static func unauthorized(_ check: String, _ message: String) -> FakeOAuth1Refusal {
        FakeOAuth1Refusal(status: 401, check: check, message: message)
    }

    /// The fake IdP could not do its own part (random bytes, MAC); never caused by the request.
    static func internalFailure(_ error: any Error) -> FakeOAuth1Refusal {
        FakeOAuth1Refusal(status: 500, check: "server", message: "the fake IdP failed: \(error)")
    }

    /// A parse or verification error of the OAuth 1.0a library, keeping its status (400, or 401 for a mismatch).
    init(_ error: OAuth1Error) {
        status = error.httpStatus
        check = error == .signatureMismatch ? "signature" : "oauth-parameters"
        message = error.description
    }

    init(status: Int, check: String, message: String) {
        self.status = status
        self.check = check
        self.message = message
    }

    /// A text response naming the endpoint and the failed check; a 401 carries `WWW-Authenticate: OAuth`.
    func response(_ endpoint: FakeEndpoint) -> ServerResponse {
        var response = ServerResponse.text(
            "fake-idp: \(endpoint.rawValue) refused: \(check) check failed: \(message)\n", status: status)
        if status == 401 { response.headers.set(name: "WWW-Authenticate", value: #"OAuth realm="fake-idp""#) }
        return response
    }

    /// A queued `oauth-error` as Twitter answers errors: 401 with `{"errors":[{"code":...,"message":...}]}`.
    ///
    /// A numeric `code` (Twitter's are, e.g. 89 "Invalid or expired token") is sent as a JSON number.
    static func twitterError(code: String, description: String?) -> ServerResponse {
        let codeValue: Any = Int(code).map { $0 as Any } ?? code
        return FakeIdPRouter.json(["errors": [["code": codeValue, "message": description ?? code]]], status: 401)
    }
}
