import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The app's side of a sign-in through auth-handler (HTTP-API.md §3): `begin` makes the URL to open in a browser,
/// `complete` reads the URL the browser comes back to and redeems its result.
///
/// ```swift
/// let client = AuthHandlerClient(baseURL: URL(string: "https://app.example.com")!)
/// let request = try client.begin(providerId: "google.com", redirectURL: URL(string: "com.example.app:/auth")!)
/// // open request.url in ASWebAuthenticationSession; it calls back with callbackURL
/// let result = try await client.complete(request, callbackURL: callbackURL)
/// ```
public struct AuthHandlerClient: Sendable {
    /// The origin (and path, when the daemon is mounted under one) that serves `/__/auth/`.
    public let baseURL: URL
    let session: URLSession
    /// The account session (HTTP-API.md §3.10), shared by every copy of this client.
    let account: AccountState

    /// A client of the daemon at `baseURL`. `session` carries the requests; the default is an ephemeral one, so
    /// nothing is cached or kept in a cookie store. `sessionStore` keeps an account session across launches
    /// (``FileSessionStore``, ``KeychainSessionStore``); the default keeps it in memory only.
    public init(
        baseURL: URL, session: URLSession = URLSession(configuration: .ephemeral),
        sessionStore: any SessionStore = MemorySessionStore()
    ) {
        self.baseURL = baseURL
        self.session = session
        self.account = AccountState(store: sessionStore)
    }

    /// Starts a sign-in: a fresh `verifier`, its `resultChallenge` and an `eventId`, and the start URL
    /// (HTTP-API.md §3.1) to open in a browser. Nothing is sent until the browser opens `url`.
    ///
    /// - Parameters:
    ///   - providerId: a provider the daemon has configured (`google.com`, `twitter.com`, `oidc.NAME`, ...).
    ///   - redirectURL: where the browser comes back; an entry of the daemon's `allowedRedirectURLs`, such as the
    ///     app's custom scheme `com.example.app:/auth`.
    ///   - scopes: scopes added to the provider's defaults; none may hold a comma.
    ///   - customParameters: passed on to the provider (`login_hint`, `prompt`, ...).
    ///   - authType: `.link` and `.reauthenticate` need `idToken`, the signed-in user's current ID token.
    /// - Throws: `invalidArgument` for what the daemon would refuse in any configuration; the daemon's own checks
    ///   (allowed redirect URL, reserved parameters) show its error page in the browser instead.
    public func begin(
        providerId: String, redirectURL: URL, scopes: [String] = [], customParameters: [String: String] = [:],
        authType: AuthType = .signIn, idToken: String? = nil
    ) throws(AuthHandlerClientError) -> SignInRequest {
        var generator = SystemRandomNumberGenerator()
        return try begin(
            providerId: providerId, redirectURL: redirectURL, scopes: scopes, customParameters: customParameters,
            authType: authType, idToken: idToken, using: &generator)
    }

    /// `begin` with the random bytes taken from `generator`. `SystemRandomNumberGenerator`, which the public `begin`
    /// uses, is the platform's cryptographically secure generator (getrandom(2) on Linux, arc4random on Apple's).
    package func begin(
        providerId: String, redirectURL: URL, scopes: [String], customParameters: [String: String],
        authType: AuthType, idToken: String?, using generator: inout some RandomNumberGenerator
    ) throws(AuthHandlerClientError) -> SignInRequest {
        guard redirectURL.scheme != nil else {
            throw .invalidArgument(
                message: "redirectURL must be absolute (https://... or the app's scheme, com.example.app:/auth)")
        }
        try Self.checkArguments(providerId: providerId, scopes: scopes, authType: authType, idToken: idToken)
        let verifier = ResultChallenge.makeVerifier(using: &generator)
        let eventId = ResultChallenge.base64URL(ResultChallenge.randomBytes(count: 16, using: &generator))
        // In the order of HTTP-API.md §3.1's table.
        var query = [
            (name: "providerId", value: providerId), (name: "redirectUrl", value: redirectURL.absoluteString),
            (name: "authType", value: authType.rawValue), (name: "eventId", value: eventId),
        ]
        if !scopes.isEmpty { query.append(("scopes", scopes.joined(separator: ","))) }
        if !customParameters.isEmpty { query.append(("customParameters", try Self.jsonObject(customParameters))) }
        query.append(("resultChallenge", ResultChallenge.challenge(forVerifier: verifier)))
        return SignInRequest(
            url: try endpoint("handler", query: QueryEncoding.encode(query)), eventId: eventId, providerId: providerId,
            redirectURL: redirectURL, authType: authType, verifier: verifier, idToken: idToken)
    }

    /// Finishes `request` with the URL the browser was sent back to: checks that it belongs to `request` (it is the
    /// request's `redirectURL` — scheme, host, port and path — and carries its `eventId`), then redeems its code with
    /// the verifier (and, for link and reauthentication, the ID token) at `POST /__/auth/result` (HTTP-API.md §3.3).
    ///
    /// A code is redeemed at most once. After `networkError`, `redemptionInProgress`, `unavailable` or a transient
    /// `backendError` the code may still be redeemable: calling `complete` again with the same request and URL is
    /// safe, and fails with `invalidResultCode` once the code is used up or expired.
    public func complete(_ request: SignInRequest, callbackURL: URL) async throws(AuthHandlerClientError)
        -> SignInResult
    {
        try Self.checkReturn(callbackURL, to: request.redirectURL)
        let callback = try SignInCallback(callbackURL)
        guard callback.eventId == request.eventId else {
            throw .mismatchedEventId(expected: request.eventId, received: callback.eventId)
        }
        let code: String
        switch callback.outcome {
        case .failure(let error): throw AuthHandlerClientError(error)
        case .code(let value): code = value
        }
        var fields = [(name: "code", value: code), (name: "verifier", value: request.verifier)]
        if request.authType.requiresIDToken, let idToken = request.idToken { fields.append(("idToken", idToken)) }
        let answer = try await post("result", fields: fields)
        return try Self.result(status: answer.status, body: answer.body, retryAfter: answer.retryAfter)
    }

    /// Refuses a callback URL that is not `redirectURL` come back: the daemon adds only to its query (HTTP-API.md
    /// §3.2), so its scheme, host, port and path are the redirect URL's. The message names the part, not the URL,
    /// whose query holds a result code.
    static func checkReturn(_ callbackURL: URL, to redirectURL: URL) throws(AuthHandlerClientError) {
        guard let expected = URLOrigin(redirectURL), let returned = URLOrigin(callbackURL) else {
            throw .mismatchedCallbackURL(
                message: "the callback URL cannot be read as a URL; pass the URL the browser was sent back to")
        }
        if let part = returned.differingPart(from: expected) {
            throw .mismatchedCallbackURL(
                message: "the callback URL's \(part) is not that of the request's redirectURL "
                    + "(\(redirectURL.absoluteString)); its code was not redeemed: complete each SignInRequest with "
                    + "the URL the browser came back to")
        }
    }

    /// POSTs `fields` as a form to `/__/auth/` + `name`, asking for JSON.
    func post(_ name: String, fields: [(name: String, value: String)]) async throws(AuthHandlerClientError)
        -> (status: Int, body: Data, retryAfter: String?)
    {
        var request = URLRequest(url: try endpoint(name, query: nil))
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.httpBody = Data(QueryEncoding.encode(fields).utf8)
        let body: Data
        let response: URLResponse
        do {
            (body, response) = try await session.data(for: request)
        } catch {
            throw .networkError(message: "POST /__/auth/\(name) failed: \(error.localizedDescription)")
        }
        guard let answer = response as? HTTPURLResponse else {
            throw .unreadableAnswer(status: 0, message: "the answer to POST /__/auth/\(name) is not HTTP")
        }
        return (answer.statusCode, body, answer.value(forHTTPHeaderField: "Retry-After"))
    }

    /// The result of a `200`, or the error of any other answer.
    package static func result(status: Int, body: Data, retryAfter: String?) throws(AuthHandlerClientError)
        -> SignInResult
    {
        let decoder = JSONDecoder()
        guard status == 200 else {
            guard let error = try? decoder.decode(DaemonErrorObject.Answer.self, from: body).error else {
                throw .unreadableAnswer(
                    status: status,
                    message: "POST /__/auth/result answered HTTP \(status) without the daemon's JSON error object; "
                        + "check that baseURL reaches auth-handler")
            }
            let seconds = retryAfter.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            throw AuthHandlerClientError(error, retryAfter: seconds)
        }
        do {
            return try decoder.decode(SignInResult.self, from: body)
        } catch {
            throw .unreadableAnswer(
                status: status, message: "the sign-in result is not readable: \(Self.reason(error))")
        }
    }

    /// Where a decoding failed, without the value it read (a token, possibly).
    private static func reason(_ error: any Error) -> String {
        let path: [any CodingKey]
        switch error as? DecodingError {
        case .keyNotFound(let key, let context)?: path = context.codingPath + [key]
        case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?: path = context.codingPath
        case .dataCorrupted(let context)?: path = context.codingPath
        case nil, .some: return "it is not JSON"
        }
        let name = path.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        return name.isEmpty ? "it is not a JSON object" : "\(name) is missing or of the wrong type"
    }

    /// `{"name": "value", ...}` with sorted names, as `customParameters` (HTTP-API.md §3.1).
    static func jsonObject(_ members: [String: String]) throws(AuthHandlerClientError) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return String(decoding: try encoder.encode(members), as: UTF8.self)
        } catch {
            throw .invalidArgument(message: "customParameters cannot be written as JSON: \(error)")
        }
    }

    /// `baseURL` + `/__/auth/` + `name`, with `query` already encoded.
    func endpoint(_ name: String, query: String?) throws(AuthHandlerClientError) -> URL {
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: true),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            components.host?.isEmpty == false, components.query == nil, components.fragment == nil,
            components.user == nil
        else {
            throw .invalidArgument(
                message: "baseURL must be the http or https URL auth-handler is served at (the app's origin), "
                    + "without user info, query or fragment")
        }
        // A plain http daemon is allowed only on this machine: elsewhere the verifier and the result would cross
        // the network unencrypted.
        guard scheme == "https" || URLOrigin(baseURL)?.isLoopback == true else {
            throw .insecureBaseURL(
                message: "baseURL is plain http to a host other than this machine's; use the daemon's https URL "
                    + "(http only for localhost, 127.0.0.0/8 or [::1])")
        }
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        components.percentEncodedPath = path + "/__/auth/" + name
        components.percentEncodedQuery = query
        guard let url = components.url else {
            throw .invalidArgument(message: "baseURL does not form a URL with /__/auth/\(name)")
        }
        return url
    }
}
