import AuthHandlerHTTP
import Foundation

/// Fetches a profile document with the access token (OIDC Core §5.3, or a provider's user API) as a Bearer.
package struct OAuth2UserInfoClient: Sendable {
    /// The limit for each call.
    package var timeout: Duration
    private let http: any HTTPFetching

    /// Creates a client.
    package init(http: any HTTPFetching, timeout: Duration = .seconds(10)) {
        self.http = http
        self.timeout = timeout
    }

    /// GETs `url` with `Authorization: Bearer accessToken` and returns the JSON answer (object or array).
    ///
    /// A non-2xx answer with an RFC 6750 §3 `WWW-Authenticate` error or an RFC 6749-style JSON `error`
    /// becomes `providerError`.
    package func fetch(url: String, accessToken: String, accept: String = "application/json")
        async throws(OAuth2ClientError) -> JSONValue
    {
        var headers = HTTPHeaders()
        headers.add(name: "Authorization", value: "Bearer " + accessToken)
        headers.add(name: "Accept", value: accept)
        let response = try await http.send(
            OutboundRequest(method: "GET", url: url, headers: headers, timeout: timeout),
            cancelled: OAuth2ClientError.cancelled(endpoint: .userInfo),
            transport: { OAuth2ClientError.transport(endpoint: .userInfo, detail: $0) })
        let document = JSONValue.parse(response.body)
        guard (200..<300).contains(response.status) else {
            if let code = Self.bearerError(response.headers["WWW-Authenticate"]) {
                throw .providerError(endpoint: .userInfo, status: response.status, code: code, description: nil)
            }
            if let error = OAuth2ErrorDocument(
                document, status: response.status, endpoint: .userInfo, redacting: [accessToken])
            {
                throw error.failure
            }
            throw .httpStatus(endpoint: .userInfo, status: response.status)
        }
        guard let document, document.objectValue != nil || document.arrayValue != nil else {
            throw .invalidResponse(
                endpoint: .userInfo, status: response.status, reason: "the body is not a JSON object or array")
        }
        return document
    }

    /// The `error="..."` of a `WWW-Authenticate: Bearer ...` challenge (RFC 6750 §3), sanitized.
    static func bearerError(_ challenge: String?) -> String? {
        guard let challenge, challenge.lowercased().hasPrefix("bearer"),
            let start = challenge.range(of: "error=\"")
        else { return nil }
        let rest = challenge[start.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return OAuth2ClientError.sanitizedCode(String(rest[..<end]))
    }
}
