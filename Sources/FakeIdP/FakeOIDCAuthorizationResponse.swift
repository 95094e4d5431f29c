import AuthHandlerCore
import AuthHandlerHTTP

/// How an authorization response goes back to the client: fields in the redirect URI's query
/// (RFC 6749 §4.1.2) or an auto-submitting form (OAuth 2.0 Form Post Response Mode), with `state` and
/// the RFC 9207 `iss` always added.
struct FakeOIDCAuthorizationResponse {
    /// `response_mode`.
    enum Mode: String {
        case query
        case formPost = "form_post"
    }

    /// The client's exact, already accepted redirect URI.
    var redirectURI: String
    var mode: Mode
    /// The client's `state`, echoed unchanged.
    var state: String?
    /// The `iss` parameter to send (RFC 9207 §2).
    var issuer: String
    /// 302 after a GET, 303 after a POST (so the browser follows with a GET, RFC 9110 §15.4.4).
    var redirectStatus: Int

    /// Delivers an authorization code.
    func code(_ code: String) -> ServerResponse {
        deliver([URLFormField(name: "code", value: code)])
    }

    /// Delivers an error (RFC 6749 §4.1.2.1).
    func error(_ error: FakeOIDCError) -> ServerResponse {
        deliver(error.redirectFields)
    }

    private func deliver(_ fields: [URLFormField]) -> ServerResponse {
        var fields = fields
        if let state { fields.append(URLFormField(name: "state", value: state)) }
        fields.append(URLFormField(name: "iss", value: issuer))
        var response: ServerResponse
        switch mode {
        case .query:
            let separator = redirectURI.contains("?") ? "&" : "?"
            response = .redirect(to: redirectURI + separator + FormURLEncoding.encode(fields), status: redirectStatus)
        case .formPost:
            response = .html(LoginPage.formPost(to: redirectURI, fields: fields.map { ($0.name, $0.value) }))
        }
        response.headers.set(name: "Cache-Control", value: "no-store")
        return response
    }
}
