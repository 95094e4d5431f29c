import AuthHandlerCore
import AuthHandlerCrypto
import AuthHandlerHTTP
import Foundation

/// OAuth 1.0a (Twitter-like) `request_token`, `access_token` and `account/verify_credentials.json`.
///
/// Each refuses what a real provider refuses (RFC 5849 §3.2 statuses: 400 malformed, 401 credentials)
/// with a text body naming the failed check. A queued `oauth-error` answers Twitter's JSON error shape
/// before any check; a queued `bad-signature` refuses the signature as if it were wrong.
extension FakeIdPRouter {
    /// `POST /oauth1/request_token` (RFC 5849 §2.1): signed by the consumer alone, with `oauth_callback`.
    func oauth1RequestToken(_ request: ServerRequest, failure: FakeFailureKind?) async -> ServerResponse {
        await answerOAuth1(request, method: "POST", failure: failure, as: .oauth1RequestToken) {
            (request, failure) async throws(FakeOAuth1Refusal) in
            try await issueOAuth1RequestToken(request, failure: failure)
        }
    }

    /// `POST /oauth1/access_token` (RFC 5849 §2.3): signed with the request token, carrying its verifier.
    func oauth1AccessToken(_ request: ServerRequest, failure: FakeFailureKind?) async -> ServerResponse {
        await answerOAuth1(request, method: "POST", failure: failure, as: .oauth1AccessToken) {
            (request, failure) async throws(FakeOAuth1Refusal) in
            try await exchangeOAuth1RequestToken(request, failure: failure)
        }
    }

    /// `GET /oauth1/account/verify_credentials.json`: signed with an access token; answers the user as Twitter does.
    func oauth1VerifyCredentials(_ request: ServerRequest, failure: FakeFailureKind?) async -> ServerResponse {
        await answerOAuth1(request, method: "GET", failure: failure, as: .oauth1VerifyCredentials) {
            (request, failure) async throws(FakeOAuth1Refusal) in
            try await oauth1Profile(request, failure: failure)
        }
    }

    /// What every OAuth 1.0a endpoint checks first: the method, then a queued `oauth-error`; `answer` does the rest,
    /// and its refusal is answered as `endpoint` answers.
    private func answerOAuth1(
        _ request: ServerRequest, method: String, failure: FakeFailureKind?, as endpoint: FakeEndpoint,
        _ answer: (ServerRequest, FakeFailureKind?) async throws(FakeOAuth1Refusal) -> ServerResponse
    ) async -> ServerResponse {
        guard request.method == method else { return Self.methodNotAllowed(request, allowed: method) }
        if case .oauthError(let code, let description) = failure {
            return FakeOAuth1Refusal.twitterError(code: code, description: description)
        }
        do {
            return try await answer(request, failure)
        } catch {
            return error.response(endpoint)
        }
    }

    private func issueOAuth1RequestToken(_ request: ServerRequest, failure: FakeFailureKind?)
        async throws(FakeOAuth1Refusal) -> ServerResponse
    {
        let header = try oauth1Header(request)
        _ = try checkOAuth1ProtocolParameters(header)
        guard oauth1Parameter("oauth_token", header: header, request: request) == nil else {
            throw .malformed(
                "oauth-parameters", "request_token takes no oauth_token; sign with the consumer credentials alone")
        }
        guard let callback = oauth1Parameter("oauth_callback", header: header, request: request), !callback.isEmpty
        else {
            throw .malformed(
                "callback", "oauth_callback is missing; send your callback URL, or oob for out-of-band (PIN) sign-in")
        }
        let consumerSecret = try oauth1ConsumerSecret(header)
        try await verifyOAuth1Signature(
            request, header: header, consumerSecret: consumerSecret, tokenSecret: "", failure: failure)
        guard callback == Self.outOfBandCallback || state.configuration.acceptsRedirectURI(callback) else {
            throw .unauthorized(
                "callback",
                "oauth_callback is not a callback URL this consumer may use; use a configured one "
                    + "(by default http://127.0.0.1:PORT/__/auth/handler) or oob")
        }

        let token: FakeRequestToken
        do {
            token = try await state.issueRequestToken(consumerKey: header.consumerKey ?? "", callback: callback)
        } catch {
            throw .internalFailure(error)
        }
        var fields = [
            URLFormField(name: "oauth_token", value: token.token),
            URLFormField(name: "oauth_token_secret", value: token.secret),
        ]
        if failure != .callbackUnconfirmed {
            fields.append(URLFormField(name: "oauth_callback_confirmed", value: "true"))
        }
        return Self.formResponse(fields)
    }

    private func exchangeOAuth1RequestToken(_ request: ServerRequest, failure: FakeFailureKind?)
        async throws(FakeOAuth1Refusal) -> ServerResponse
    {
        let header = try oauth1Header(request)
        guard let tokenValue = oauth1Parameter("oauth_token", header: header, request: request), !tokenValue.isEmpty
        else {
            throw .malformed("token", "oauth_token is missing; sign with the request token from request_token")
        }
        // Single use whatever happens next: a request that fails any later check still uses the token up.
        let requestToken = await state.consumeRequestToken(tokenValue)

        _ = try checkOAuth1ProtocolParameters(header)
        guard let verifier = oauth1Parameter("oauth_verifier", header: header, request: request), !verifier.isEmpty
        else {
            throw .malformed(
                "verifier", "oauth_verifier is missing; send the verifier the callback received with the token")
        }
        let consumerSecret = try oauth1ConsumerSecret(header)
        guard let requestToken else {
            throw .unauthorized(
                "request-token",
                "oauth_token is not a live request token (unknown, expired, already exchanged or denied); "
                    + "start again at request_token")
        }
        guard requestToken.consumerKey == header.consumerKey else {
            throw .unauthorized("request-token", "the request token was issued to another consumer")
        }
        try await verifyOAuth1Signature(
            request, header: header, consumerSecret: consumerSecret, tokenSecret: requestToken.secret,
            failure: failure)
        guard let boundVerifier = requestToken.verifier, let userID = requestToken.userID else {
            throw .unauthorized(
                "verifier",
                "no user authorized this request token, so no verifier is bound to it; "
                    + "send the user to authorize first")
        }
        guard ConstantTime.equals(verifier, boundVerifier) else {
            throw .unauthorized("verifier", "oauth_verifier is not the verifier issued for this request token")
        }
        guard let user = state.configuration.user(id: userID) else {
            throw .unauthorized("user", "the user who authorized this token is no longer configured")
        }

        let accessToken: (token: String, secret: String)
        do {
            accessToken = try await state.issueOAuth1AccessToken(consumerKey: requestToken.consumerKey, userID: userID)
        } catch {
            throw .internalFailure(error)
        }
        return Self.formResponse([
            URLFormField(name: "oauth_token", value: accessToken.token),
            URLFormField(name: "oauth_token_secret", value: accessToken.secret),
            URLFormField(name: "user_id", value: Self.twitterID(of: user)),
            URLFormField(name: "screen_name", value: user.name),
        ])
    }

    private func oauth1Profile(_ request: ServerRequest, failure: FakeFailureKind?)
        async throws(FakeOAuth1Refusal) -> ServerResponse
    {
        let header = try oauth1Header(request)
        _ = try checkOAuth1ProtocolParameters(header)
        guard let tokenValue = oauth1Parameter("oauth_token", header: header, request: request), !tokenValue.isEmpty
        else {
            throw .malformed("token", "oauth_token is missing; sign with the access token from access_token")
        }
        let consumerSecret = try oauth1ConsumerSecret(header)
        guard let accessToken = await state.oauth1AccessToken(tokenValue) else {
            throw .unauthorized("token", "oauth_token is not an access token issued by this fake IdP")
        }
        guard accessToken.consumerKey == header.consumerKey else {
            throw .unauthorized("token", "the access token was issued to another consumer")
        }
        try await verifyOAuth1Signature(
            request, header: header, consumerSecret: consumerSecret, tokenSecret: accessToken.secret,
            failure: failure)
        guard let user = state.configuration.user(id: accessToken.userID) else {
            throw .unauthorized("user", "the user of this access token is no longer configured")
        }

        let id = Self.twitterID(of: user)
        var profile: [String: Any] = [
            "id": Int64(id) ?? 0, "id_str": id, "screen_name": user.name, "name": user.displayName,
        ]
        // Twitter returns the e-mail address only when asked, and reads booleans as true, t or 1.
        if let includeEmail = request.queryItems.first(named: "include_email"),
            ["true", "t", "1"].contains(includeEmail)
        {
            profile["email"] = user.email
        }
        return Self.json(profile)
    }

    /// The `oauth_callback` value for out-of-band sign-in: the verifier is shown to the user as a PIN.
    static let outOfBandCallback = "oob"

    /// A 200 `application/x-www-form-urlencoded` body, as the token endpoints of RFC 5849 §2 answer.
    static func formResponse(_ fields: [URLFormField]) -> ServerResponse {
        ServerResponse(
            status: 200, headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: Array(FormURLEncoding.encode(fields).utf8))
    }

    /// The user's Twitter-style numeric id as text: its id when that is a decimal number below 2^53,
    /// otherwise a stable 53-bit number derived from it (so that JSON `id` and `id_str` always agree).
    static func twitterID(of user: FakeUser) -> String {
        let limit: UInt64 = 1 << 53
        if let number = UInt64(user.id), number < limit, String(number) == user.id { return user.id }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in user.id.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return String(hash % limit)
    }
}
