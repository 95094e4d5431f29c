import AuthHandlerHTTP

/// The OAuth 2.0 / OpenID Connect authorization request (RFC 6749 §4.1.1, RFC 7636 §4.3, OIDC Core §3.1.2.1).
///
/// Parameters come in HTTP-API.md §3.1 order: `response_type=code`, `client_id`, `redirect_uri`, `scope`,
/// `state`, `code_challenge`, `code_challenge_method=S256`, `nonce` (OIDC), `response_mode` (only for
/// `form_post`), then the custom parameters in the order given. A query already in the endpoint is kept
/// in front (RFC 6749 §3.1).
///
/// The custom parameters are sent as given: the caller refuses names the handler sets itself (HTTP-API.md §3.1)
/// before it builds a request.
package struct AuthorizationRequest: Sendable, Hashable {
    /// Why the authorization URL could not be built.
    package enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The authorization endpoint cannot carry a query; the reason says why.
        case invalidEndpoint(String)

        package var description: String {
            switch self {
            case .invalidEndpoint(let reason):
                "the authorization endpoint cannot be used: \(reason); fix the provider's endpoints.authorization"
            }
        }
    }

    /// The provider's authorization endpoint, possibly with a query of its own.
    package var endpoint: String
    package var clientID: String
    /// `publicURL + "/__/auth/handler"`.
    package var redirectURI: String
    /// Sent space-joined as `scope`; omitted when empty.
    package var scopes: [String]
    package var state: String
    /// The S256 challenge of the session's PKCE verifier.
    package var codeChallenge: String
    /// The OpenID Connect nonce; nil for plain OAuth 2.
    package var nonce: String?
    /// Whether to ask for `response_mode=form_post` (the default `query` is never sent).
    package var usesFormPost: Bool
    /// Provider-specific extras (`prompt`, `login_hint`, `hd`, ...), appended last in order; already checked by the
    /// caller.
    package var customParameters: [URLFormField]

    /// Creates a request.
    package init(
        endpoint: String, clientID: String, redirectURI: String, scopes: [String], state: String,
        codeChallenge: String, nonce: String? = nil, usesFormPost: Bool = false, customParameters: [URLFormField] = []
    ) {
        self.endpoint = endpoint
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.scopes = scopes
        self.state = state
        self.codeChallenge = codeChallenge
        self.nonce = nonce
        self.usesFormPost = usesFormPost
        self.customParameters = customParameters
    }

    /// The parameters the handler sets, in the order of HTTP-API.md §3.1, before the custom ones.
    package var protocolParameters: [URLFormField] {
        var fields = [
            URLFormField(name: "response_type", value: "code"),
            URLFormField(name: "client_id", value: clientID),
            URLFormField(name: "redirect_uri", value: redirectURI),
        ]
        if !scopes.isEmpty { fields.append(URLFormField(name: "scope", value: scopes.joined(separator: " "))) }
        fields.append(URLFormField(name: "state", value: state))
        fields.append(URLFormField(name: "code_challenge", value: codeChallenge))
        fields.append(URLFormField(name: "code_challenge_method", value: PKCE.challengeMethod))
        if let nonce { fields.append(URLFormField(name: "nonce", value: nonce)) }
        if usesFormPost { fields.append(URLFormField(name: "response_mode", value: "form_post")) }
        return fields
    }

    /// The URL to redirect the browser to.
    package func url() throws(Failure) -> String {
        // RFC 6749 §3.1: the endpoint URI "MUST NOT include a fragment component".
        guard !endpoint.utf8.contains(UInt8(ascii: "#")) else { throw .invalidEndpoint("it has a fragment") }
        guard endpoint.hasPrefix("https://") || endpoint.hasPrefix("http://") else {
            throw .invalidEndpoint("it is not an absolute http or https URL")
        }
        let query = FormURLEncoding.encode(protocolParameters + customParameters)
        guard endpoint.utf8.contains(UInt8(ascii: "?")) else { return endpoint + "?" + query }
        return endpoint.hasSuffix("?") || endpoint.hasSuffix("&") ? endpoint + query : endpoint + "&" + query
    }
}
