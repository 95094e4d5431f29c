import AuthHandlerHTTP
import AuthHandlerSystem
import Foundation

/// Why a call to an OAuth 2 token or user-info endpoint failed.
///
/// Only the IdP's `error` code and a sanitized, bounded `error_description` are kept (RFC 6749 §5.2);
/// never the code, verifier, secret, token or a URL query.
package enum OAuth2ClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Which endpoint failed.
    package enum Endpoint: String, Sendable, Hashable {
        /// The token endpoint (authorization-code exchange).
        case token
        /// The user-info (profile) endpoint.
        case userInfo = "userinfo"
    }

    /// The IdP answered with an RFC 6749 §5.2 (or RFC 6750 §3) error.
    case providerError(endpoint: Endpoint, status: Int, code: String, description: String?)
    /// The IdP answered a non-2xx status without a usable error document.
    case httpStatus(endpoint: Endpoint, status: Int)
    /// The body is not the JSON object (or, for the token endpoint, form answer) the protocol requires.
    case invalidResponse(endpoint: Endpoint, status: Int, reason: String)
    /// The token answer has no `access_token`.
    case missingAccessToken(status: Int)
    /// The token answer's `token_type` is not `Bearer` (RFC 6750); `tokenType` is sanitized.
    case unsupportedTokenType(String)
    /// The request could not be sent or no answer came; `detail` is the transport error without any query.
    case transport(endpoint: Endpoint, detail: String)
    /// The task was cancelled while waiting for the IdP.
    case cancelled(endpoint: Endpoint)

    /// Longest `error` code kept.
    package static let maximumCodeLength = 64
    /// Longest `error_description` kept.
    package static let maximumDescriptionLength = 200

    /// The IdP's HTTP status, when it answered.
    package var httpStatus: Int? {
        switch self {
        case .providerError(_, let status, _, _), .httpStatus(_, let status), .invalidResponse(_, let status, _),
            .missingAccessToken(let status):
            status
        case .unsupportedTokenType, .transport, .cancelled:
            nil
        }
    }

    /// The IdP's `error` code, when it sent one.
    package var providerCode: String? {
        if case .providerError(_, _, let code, _) = self { return code }
        return nil
    }

    package var description: String {
        switch self {
        case .providerError(let endpoint, let status, let code, let description):
            "the \(endpoint.rawValue) endpoint answered HTTP \(status) with error \(code)"
                + (description.map { " (\($0))" } ?? "") + "; " + Self.advice(forCode: code)
        case .httpStatus(let endpoint, let status):
            "the \(endpoint.rawValue) endpoint answered HTTP \(status) without an OAuth error document; "
                + "check the endpoint URL and the provider's status"
        case .invalidResponse(let endpoint, let status, let reason):
            "the \(endpoint.rawValue) endpoint answered HTTP \(status) with an unusable body: \(reason); "
                + "check that the endpoint is the provider's \(endpoint.rawValue) URL"
        case .missingAccessToken(let status):
            "the token endpoint answered HTTP \(status) without access_token; check the token endpoint URL"
        case .unsupportedTokenType(let type):
            "the token endpoint issued a \(type) token; only Bearer tokens (RFC 6750) are supported"
        case .transport(let endpoint, let detail):
            "the \(endpoint.rawValue) request failed in transport: \(detail); check the endpoint and the network"
        case .cancelled(let endpoint):
            "the \(endpoint.rawValue) request was cancelled before the provider answered"
        }
    }

    static func advice(forCode code: String) -> String {
        switch code {
        case "invalid_grant":
            "the code is expired, used or was issued for another redirect_uri or verifier; sign in again"
        case "invalid_client": "check the client id, the client secret and tokenEndpointAuth"
        // RFC 6749 §2.3.1 form-encodes the secret inside Basic auth; some providers do not decode it and answer
        // unauthorized_client, so the grant is not the only suspect (CONFIG.md, tokenEndpointAuth).
        case "unauthorized_client":
            "the client may not use the authorization code grant (check its registration), or, with "
                + "client_secret_basic and a client secret holding + / = % or :, the provider did not decode the "
                + "form-encoded secret that RFC 6749 §2.3.1 puts in the Basic header; "
                + "set tokenEndpointAuth to client_secret_post"
        case "invalid_token": "the access token was refused; sign in again"
        case "insufficient_scope": "request the scopes this endpoint needs"
        default: "see the provider's documentation for this error"
        }
    }

    /// An `error` code kept only if it is 1–64 characters of RFC 6749 §5.2's `%x20-21 / %x23-5B / %x5D-7E`.
    static func sanitizedCode(_ code: String) -> String? {
        guard !code.isEmpty, code.utf8.count <= maximumCodeLength,
            code.utf8.allSatisfy({ (0x20...0x7E).contains($0) && $0 != 0x22 && $0 != 0x5C })
        else { return nil }
        return code
    }

    /// `text` with anything outside printable ASCII replaced by `?`, each of `redacting` replaced by
    /// `<redacted>` (an IdP may echo what it was sent), cut to `maximumDescriptionLength`.
    static func sanitizedDescription(_ text: String, redacting values: [String]) -> String? {
        // Scrub first, raw and form-encoded (the code and secret were sent form-encoded), while the text is
        // still as the IdP sent it; only then reduce it to printable ASCII.
        let scrubbed = SensitiveValues(values).scrub(text)
        var cleaned = String(
            decoding: scrubbed.utf8.map { (0x20...0x7E).contains($0) ? $0 : 0x3F },
            as: UTF8.self)
        cleaned = cleaned.trimmingCharacters(in: .whitespaces)
        guard !cleaned.isEmpty else { return nil }
        if cleaned.utf8.count > maximumDescriptionLength {
            cleaned = String(decoding: cleaned.utf8.prefix(maximumDescriptionLength - 3), as: UTF8.self) + "..."
        }
        return cleaned
    }
}
