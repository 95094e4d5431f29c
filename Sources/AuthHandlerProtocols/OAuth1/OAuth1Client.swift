import AuthHandlerHTTP
import AuthHandlerSystem

/// The outbound side of OAuth 1.0a (RFC 5849 §2): temporary credentials, the authorize URL, token
/// credentials and signed resource requests, sent through an injected `HTTPFetching`.
///
/// Protocol parameters travel in the `Authorization` header only (§3.5.1); the request bodies are empty.
package struct OAuth1Client: Sendable {
    /// Temporary credentials from the request-token endpoint (§2.1).
    package struct TemporaryCredentials: Sendable, Hashable {
        /// `oauth_token`: sent to the authorize URL and matched against the callback.
        package var token: String
        /// `oauth_token_secret`: signs the access-token request; kept server-side only.
        package var secret: String
    }

    /// Token credentials from the access-token endpoint (§2.3), with the provider's extra fields.
    package struct TokenCredentials: Sendable, Hashable {
        /// `oauth_token`: the access token.
        package var token: String
        /// `oauth_token_secret`: the access token secret.
        package var secret: String
        /// Every other field of the answer, in order (Twitter: `user_id`, `screen_name`).
        package var extraFields: [URLFormField] = []

        /// Twitter's `user_id`, when the provider sent one.
        package var userID: String? { extraFields.first(named: "user_id") }
        /// Twitter's `screen_name`, when the provider sent one.
        package var screenName: String? { extraFields.first(named: "screen_name") }
    }

    /// Signs every request with the consumer credentials.
    package var signer: OAuth1Signer
    /// The temporary-credential request endpoint.
    package var requestTokenEndpoint: String
    /// The resource-owner authorization endpoint.
    package var authorizeEndpoint: String
    /// The token request endpoint.
    package var accessTokenEndpoint: String
    /// The limit for each call.
    package var timeout: Duration
    private let http: any HTTPFetching

    /// Creates a client for one provider.
    package init(
        signer: OAuth1Signer, requestTokenEndpoint: String, authorizeEndpoint: String, accessTokenEndpoint: String,
        http: any HTTPFetching, timeout: Duration = .seconds(10)
    ) {
        self.signer = signer
        self.requestTokenEndpoint = requestTokenEndpoint
        self.authorizeEndpoint = authorizeEndpoint
        self.accessTokenEndpoint = accessTokenEndpoint
        self.http = http
        self.timeout = timeout
    }

    /// Obtains temporary credentials for `callback` (§2.1); refuses an answer without `oauth_callback_confirmed=true`.
    package func requestToken(callback: String) async throws(OAuth1ClientError) -> TemporaryCredentials {
        let header: OAuth1AuthorizationHeader
        do {
            header = try signer.authorizationHeader(method: "POST", url: requestTokenEndpoint, callback: callback)
        } catch {
            throw .signing(step: .requestToken, error)
        }
        let response = try await send(signedPOST(requestTokenEndpoint, header: header), step: .requestToken)
        return try Self.temporaryCredentials(from: response)
    }

    /// Reads the request-token endpoint's answer (§2.1): a 2xx form body with exactly one `oauth_token`, one
    /// `oauth_token_secret` and `oauth_callback_confirmed=true`.
    package static func temporaryCredentials(from response: OutboundResponse) throws(OAuth1ClientError)
        -> TemporaryCredentials
    {
        let fields = try formAnswer(response, step: .requestToken)
        let confirmed = fields.all(named: "oauth_callback_confirmed")
        guard confirmed == ["true"] else { throw .callbackNotConfirmed(status: response.status) }
        let (token, secret) = try tokenPair(fields, response: response, step: .requestToken)
        return TemporaryCredentials(token: token, secret: secret)
    }

    /// The URL to send the browser to (§2.2): the endpoint's own query, then `oauth_token`, then `customParameters`.
    ///
    /// `customParameters` are sent as given: the caller refuses the `oauth_` names the handler owns (RFC 5849 §3.5,
    /// HTTP-API.md §3.1) before it asks.
    package func authorizeURL(token: String, customParameters: [URLFormField] = []) throws(OAuth1ClientError)
        -> String
    {
        guard !authorizeEndpoint.contains("#") else {
            throw .invalidEndpoint(step: .authorize, reason: "the URL has a fragment, which a query cannot follow")
        }
        let fields = [URLFormField(name: "oauth_token", value: token)] + customParameters
        return Self.appendingQuery(FormURLEncoding.encode(fields), to: authorizeEndpoint)
    }

    /// Exchanges the authorized request token and its verifier for token credentials (§2.3).
    package func accessToken(requestToken: String, requestTokenSecret: String, verifier: String)
        async throws(OAuth1ClientError) -> TokenCredentials
    {
        let header: OAuth1AuthorizationHeader
        do {
            header = try signer.authorizationHeader(
                method: "POST", url: accessTokenEndpoint, token: requestToken, tokenSecret: requestTokenSecret,
                verifier: verifier)
        } catch {
            throw .signing(step: .accessToken, error)
        }
        let response = try await send(signedPOST(accessTokenEndpoint, header: header), step: .accessToken)
        return try Self.tokenCredentials(from: response)
    }

    /// Reads the access-token endpoint's answer (§2.3): a 2xx form body with exactly one `oauth_token` and one
    /// `oauth_token_secret`; every other field is kept.
    package static func tokenCredentials(from response: OutboundResponse) throws(OAuth1ClientError) -> TokenCredentials
    {
        let fields = try formAnswer(response, step: .accessToken)
        let (token, secret) = try tokenPair(fields, response: response, step: .accessToken)
        let extras = fields.filter { $0.name != "oauth_token" && $0.name != "oauth_token_secret" }
        return TokenCredentials(token: token, secret: secret, extraFields: extras)
    }

    /// A GET signed with token credentials (§3), answered with a JSON document: the profile.
    package func signedGET(url: String, token: String, tokenSecret: String) async throws(OAuth1ClientError)
        -> JSONValue
    {
        let header: OAuth1AuthorizationHeader
        do {
            header = try signer.authorizationHeader(method: "GET", url: url, token: token, tokenSecret: tokenSecret)
        } catch {
            throw .signing(step: .profile, error)
        }
        var headers = HTTPHeaders()
        headers.add(name: "Authorization", value: header.value)
        headers.add(name: "Accept", value: "application/json")
        let response = try await send(
            OutboundRequest(method: "GET", url: url, headers: headers, timeout: timeout), step: .profile)
        guard (200..<300).contains(response.status) else {
            throw .refused(step: .profile, status: response.status, providerCode: Self.providerCode(response.body))
        }
        guard let document = JSONValue.parse(response.body), document.objectValue != nil else {
            throw .malformedResponse(step: .profile, status: response.status, reason: "the body is not a JSON object")
        }
        return document
    }

    private func signedPOST(_ url: String, header: OAuth1AuthorizationHeader) -> OutboundRequest {
        var headers = HTTPHeaders()
        headers.add(name: "Authorization", value: header.value)
        headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        return OutboundRequest(method: "POST", url: url, headers: headers, timeout: timeout)
    }

    private func send(_ request: OutboundRequest, step: OAuth1ClientError.Step) async throws(OAuth1ClientError)
        -> OutboundResponse
    {
        try await http.send(
            request, cancelled: OAuth1ClientError.cancelled(step: step),
            transport: { OAuth1ClientError.transport(step: step, detail: $0) })
    }

    /// The decoded form body of a 2xx answer (§2.1, §2.3 use `application/x-www-form-urlencoded`).
    private static func formAnswer(_ response: OutboundResponse, step: OAuth1ClientError.Step)
        throws(OAuth1ClientError) -> [URLFormField]
    {
        guard (200..<300).contains(response.status) else {
            throw .refused(step: step, status: response.status, providerCode: providerCode(response.body))
        }
        do {
            return try FormURLEncoding.decode(bytes: response.body)
        } catch {
            throw .malformedResponse(step: step, status: response.status, reason: "the body is not form-encoded")
        }
    }

    private static func tokenPair(_ fields: [URLFormField], response: OutboundResponse, step: OAuth1ClientError.Step)
        throws(OAuth1ClientError) -> (String, String)
    {
        let tokens = fields.all(named: "oauth_token")
        let secrets = fields.all(named: "oauth_token_secret")
        guard tokens.count == 1, let token = tokens.first, !token.isEmpty else {
            throw .malformedResponse(
                step: step, status: response.status, reason: "expected exactly one non-empty oauth_token")
        }
        guard secrets.count == 1, let secret = secrets.first else {
            throw .malformedResponse(
                step: step, status: response.status, reason: "expected exactly one oauth_token_secret")
        }
        return (token, secret)
    }

    /// The provider's error code, if it gave a recognisable one: Twitter's JSON `errors[0].code` or the
    /// problem-reporting extension's `oauth_problem`. Only short `[A-Za-z0-9_.-]` values are kept.
    package static func providerCode(_ body: [UInt8]) -> String? {
        let candidate: String?
        if let document = JSONValue.parse(body) {
            candidate = document["errors"]?.arrayValue?.first?["code"]?.identifierString
        } else if let fields = try? FormURLEncoding.decode(bytes: body) {
            candidate = fields.first(named: "oauth_problem")
        } else {
            candidate = nil
        }
        guard let candidate, !candidate.isEmpty, candidate.utf8.count <= 64,
            candidate.utf8.allSatisfy({ RFC3986.isUnreserved($0) && $0 != UInt8(ascii: "~") })
        else { return nil }
        return candidate
    }

    /// `url` with `query` appended after any query it already has.
    static func appendingQuery(_ query: String, to url: String) -> String {
        guard !query.isEmpty else { return url }
        guard url.contains("?") else { return url + "?" + query }
        return url.hasSuffix("?") || url.hasSuffix("&") ? url + query : url + "&" + query
    }
}

/// Why an outbound OAuth 1.0a call (request token, authorize URL, access token, signed GET) failed.
///
/// Descriptions name the step, the HTTP status and a short reason; never a token, a secret, a verifier
/// or a URL query.
package enum OAuth1ClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Which call failed.
    package enum Step: String, Sendable, Hashable {
        /// The temporary-credential request (RFC 5849 §2.1).
        case requestToken = "request_token"
        /// Building the resource-owner authorization URL (§2.2).
        case authorize
        /// The token-credential request (§2.3).
        case accessToken = "access_token"
        /// A signed resource request, such as Twitter's `account/verify_credentials.json`.
        case profile
    }

    /// The request could not be sent or no answer came; `detail` is the transport error without any query.
    case transport(step: Step, detail: String)
    /// The task was cancelled while waiting for the provider.
    case cancelled(step: Step)
    /// The provider answered with a non-2xx status; `providerCode` is its error code when it gave one.
    case refused(step: Step, status: Int, providerCode: String?)
    /// The provider answered 2xx with a body that is not what the protocol requires; `reason` says what.
    case malformedResponse(step: Step, status: Int, reason: String)
    /// The request-token answer lacks `oauth_callback_confirmed=true` (§2.1): not an OAuth 1.0a server.
    case callbackNotConfirmed(status: Int)
    /// The configured endpoint URL cannot be used; `reason` says why.
    case invalidEndpoint(step: Step, reason: String)
    /// The request could not be signed.
    case signing(step: Step, OAuth1Error)

    /// The provider's HTTP status, when it answered.
    package var httpStatus: Int? {
        switch self {
        case .refused(_, let status, _), .malformedResponse(_, let status, _), .callbackNotConfirmed(let status):
            status
        default:
            nil
        }
    }

    /// The step that failed.
    package var step: Step {
        switch self {
        case .transport(let step, _), .cancelled(let step), .refused(let step, _, _),
            .malformedResponse(let step, _, _), .invalidEndpoint(let step, _), .signing(let step, _):
            step
        case .callbackNotConfirmed: .requestToken
        }
    }

    package var description: String {
        switch self {
        case .transport(let step, let detail):
            "OAuth 1.0a \(step.rawValue) failed in transport: \(detail); check the endpoint and the network"
        case .cancelled(let step):
            "OAuth 1.0a \(step.rawValue) was cancelled before the provider answered"
        case .refused(let step, let status, let code):
            "OAuth 1.0a \(step.rawValue) refused with HTTP \(status)"
                + (code.map { " (provider error \($0))" } ?? "")
                + "; check the consumer key and secret, the callback URL registered with the provider, and the clock"
        case .malformedResponse(let step, let status, let reason):
            "OAuth 1.0a \(step.rawValue) answered HTTP \(status) with an unusable body: \(reason); "
                + "check that the endpoint is the provider's \(step.rawValue) URL"
        case .callbackNotConfirmed(let status):
            "OAuth 1.0a request_token answered HTTP \(status) without oauth_callback_confirmed=true; "
                + "the provider does not speak OAuth 1.0a (RFC 5849 §2.1), so the sign-in was not started"
        case .invalidEndpoint(let step, let reason):
            "the OAuth 1.0a \(step.rawValue) endpoint cannot be used: \(reason); fix it in the provider's endpoints"
        case .signing(let step, let error):
            "the OAuth 1.0a \(step.rawValue) request could not be signed: \(error)"
        }
    }
}
