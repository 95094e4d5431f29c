import AuthHandlerHTTP

/// Redeems an authorization code at the token endpoint (RFC 6749 §4.1.3–§4.1.4, §5) with the PKCE verifier.
///
/// Sends `Accept: application/json`; reads JSON answers and, for GitHub-style providers, form-encoded
/// ones. An `error` member is an error whatever the status (GitHub answers `200` with one).
package struct OAuth2TokenClient: Sendable {
    /// The token endpoint.
    package var endpoint: String
    package var clientID: String
    package var authentication: OAuth2ClientAuthentication
    /// The limit for the call.
    package var timeout: Duration
    private let http: any HTTPFetching

    /// Creates a client for one provider.
    package init(
        endpoint: String, clientID: String, authentication: OAuth2ClientAuthentication, http: any HTTPFetching,
        timeout: Duration = .seconds(10)
    ) {
        self.endpoint = endpoint
        self.clientID = clientID
        self.authentication = authentication
        self.http = http
        self.timeout = timeout
    }

    /// The token answer (RFC 6749 §5.1, OIDC Core §3.1.3.3), members as the IdP sent them.
    package struct Answer: Sendable, Hashable {
        package var accessToken: String
        package var idToken: String?
        package var refreshToken: String?
        /// Seconds until `accessToken` expires, as the IdP said.
        package var expiresIn: Int?
        /// Scopes granted, as the IdP said.
        package var scope: String?
        /// `token_type` as the IdP sent it (`Bearer`, `bearer`), nil when absent.
        package var tokenType: String?
    }

    /// Exchanges `code` (with the session's PKCE verifier) for tokens.
    package func exchange(code: String, redirectURI: String, codeVerifier: String)
        async throws(OAuth2ClientError) -> Answer
    {
        let request = tokenRequest(code: code, redirectURI: redirectURI, codeVerifier: codeVerifier)
        let response = try await http.send(
            request, cancelled: OAuth2ClientError.cancelled(endpoint: .token),
            transport: { OAuth2ClientError.transport(endpoint: .token, detail: $0) })
        var redacted = [code, codeVerifier]
        switch authentication {
        case .clientSecretBasic(let secret), .clientSecretPost(let secret): redacted.append(secret)
        case .none: break
        }
        return try Self.parse(response, redacting: redacted)
    }

    /// The POST the exchange sends.
    package func tokenRequest(code: String, redirectURI: String, codeVerifier: String) -> OutboundRequest {
        var fields = [
            URLFormField(name: "grant_type", value: "authorization_code"),
            URLFormField(name: "code", value: code),
            URLFormField(name: "redirect_uri", value: redirectURI),
            URLFormField(name: "code_verifier", value: codeVerifier),
        ]
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        headers.add(name: "Accept", value: "application/json")
        switch authentication {
        case .clientSecretBasic(let secret):
            headers.add(
                name: "Authorization",
                value: OAuth2ClientAuthentication.basicAuthorization(clientID: clientID, secret: secret))
        case .clientSecretPost(let secret):
            fields.append(URLFormField(name: "client_id", value: clientID))
            fields.append(URLFormField(name: "client_secret", value: secret))
        case .none:
            fields.append(URLFormField(name: "client_id", value: clientID))
        }
        return OutboundRequest(
            method: "POST", url: endpoint, headers: headers, body: Array(FormURLEncoding.encode(fields).utf8),
            timeout: timeout)
    }

    /// Reads a token endpoint answer; `redacting` are values an echoed error description must not show.
    static func parse(_ response: OutboundResponse, redacting: [String] = []) throws(OAuth2ClientError) -> Answer {
        let document = Self.document(response)
        if let error = OAuth2ErrorDocument(document, status: response.status, endpoint: .token, redacting: redacting) {
            throw error.failure
        }
        guard (200..<300).contains(response.status) else {
            throw .httpStatus(endpoint: .token, status: response.status)
        }
        guard let document else {
            let reason = response.body.isEmpty ? "the body is empty" : "the body is neither a JSON object nor a form"
            throw .invalidResponse(endpoint: .token, status: response.status, reason: reason)
        }
        guard let accessToken = document["access_token"]?.stringValue, !accessToken.isEmpty else {
            throw .missingAccessToken(status: response.status)
        }
        let tokenType = document["token_type"]?.stringValue
        if let tokenType, tokenType.lowercased() != "bearer" {
            throw .unsupportedTokenType(
                OAuth2ClientError.sanitizedCode(tokenType).map { String($0.prefix(32)) } ?? "non-Bearer")
        }
        return Answer(
            accessToken: accessToken, idToken: document["id_token"]?.stringValue,
            refreshToken: document["refresh_token"]?.stringValue,
            expiresIn: Self.seconds(document["expires_in"]), scope: document["scope"]?.stringValue, tokenType: tokenType
        )
    }

    /// The body as a JSON object, or a form (GitHub without `Accept`) as an object of strings; nil otherwise.
    private static func document(_ response: OutboundResponse) -> JSONValue? {
        guard !response.body.isEmpty else { return nil }
        if let json = JSONValue.parse(response.body) {
            return json.objectValue != nil ? json : nil
        }
        let contentType = response.headers["Content-Type"]?.lowercased() ?? ""
        let first = response.body.first { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }
        guard !contentType.contains("json"), first != UInt8(ascii: "{"), first != UInt8(ascii: "["),
            let fields = try? FormURLEncoding.decode(bytes: response.body), !fields.isEmpty,
            fields.allSatisfy({ !$0.name.isEmpty && $0.name.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F } })
        else { return nil }
        var members: [String: JSONValue] = [:]
        for field in fields where members[field.name] == nil { members[field.name] = .string(field.value) }
        return .object(members)
    }

    /// `expires_in` as a number or a numeric string (some IdPs quote it); nil when absent or nonsense.
    private static func seconds(_ value: JSONValue?) -> Int? {
        let number: Double?
        switch value {
        case .integer, .number: number = value?.numberValue
        case .string(let text): number = Double(text)
        default: number = nil
        }
        guard let number, number.isFinite, number >= 0, number < 1e12 else { return nil }
        return Int(number)
    }
}

/// An RFC 6749 §5.2 error document: `error` (required) and `error_description`.
struct OAuth2ErrorDocument {
    let failure: OAuth2ClientError

    /// Nil when `document` has no usable `error` member.
    init?(_ document: JSONValue?, status: Int, endpoint: OAuth2ClientError.Endpoint, redacting: [String]) {
        guard let raw = document?["error"]?.stringValue else { return nil }
        let code = OAuth2ClientError.sanitizedCode(raw) ?? "invalid_error_code"
        let description = document?["error_description"]?.stringValue.flatMap {
            OAuth2ClientError.sanitizedDescription($0, redacting: redacting)
        }
        failure = .providerError(endpoint: endpoint, status: status, code: code, description: description)
    }
}
