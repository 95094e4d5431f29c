import AuthHandlerCore
import AuthHandlerHTTP
import AuthHandlerProtocols
import Foundation
import TestSupport
import Testing

@testable import FakeIdP

/// A request token the fake IdP issued, and the verifier once a user approved it.
struct FakeOAuth1Credentials: Sendable {
    var token: String
    var secret: String
    var verifier: String = ""
}

/// Drives the fake IdP's OAuth 1.0a endpoints as a client does, signing with our own `OAuth1Signer`.
struct FakeOAuth1TestClient: Sendable {
    /// A callback the default configuration accepts.
    static let callback = "http://127.0.0.1:4000/__/auth/handler"

    let idp: FakeIdP
    let http: HTTPClient
    var signer: OAuth1Signer

    init(
        _ idp: FakeIdP, _ http: HTTPClient, method: OAuth1SignatureMethod = .hmacSHA1,
        consumerKey: String = "fake-consumer-key", consumerSecret: String = "fake-consumer-secret"
    ) {
        self.idp = idp
        self.http = http
        signer = OAuth1Signer(consumerKey: consumerKey, consumerSecret: consumerSecret, signatureMethod: method)
    }

    /// The absolute URL of an endpoint under `/oauth1/`.
    func url(_ path: String) -> String {
        idp.baseURL + "/oauth1/" + path
    }

    /// The fake IdP's clock as a Unix time, for signing after `advanceClock`.
    func fakeNow() async -> Int64 {
        Int64(await idp.state.now().timeIntervalSince1970)
    }

    /// POSTs a signed `request_token` request; `callback: nil` sends none.
    func requestTokenResponse(
        callback: String? = FakeOAuth1TestClient.callback, body: [URLFormField] = [], timestamp: Int64? = nil,
        nonce: String? = nil
    ) async throws -> OutboundResponse {
        let header = try signer.authorizationHeader(
            method: "POST", url: url("request_token"), parameters: body, callback: callback, nonce: nonce,
            timestamp: timestamp)
        return try await http.postForm(url("request_token"), body, headers: ["Authorization": header.value])
    }

    /// A request token, expecting `request_token` to answer it.
    func requestToken(callback: String = FakeOAuth1TestClient.callback) async throws -> FakeOAuth1Credentials {
        let response = try await requestTokenResponse(callback: callback)
        try #require(response.status == 200, "request_token: \(response.status) \(response.text)")
        let fields = response.formFields
        #expect(fields.first(named: "oauth_callback_confirmed") == "true")
        let token = try #require(fields.first(named: "oauth_token"))
        let secret = try #require(fields.first(named: "oauth_token_secret"))
        return FakeOAuth1Credentials(token: token, secret: secret)
    }

    /// `GET /oauth1/authorize?oauth_token=...&screen_name=...` (or `authenticate`), redirects not followed.
    func authorize(_ token: String, screenName: String? = "alice", path: String = "authorize") async throws
        -> OutboundResponse
    {
        var query = [URLFormField(name: "oauth_token", value: token)]
        if let screenName { query.append(URLFormField(name: "screen_name", value: screenName)) }
        return try await http.get(url(path) + "?" + FormURLEncoding.encode(query))
    }

    /// A request token approved by `user` through auto-approve, with its verifier.
    func approvedRequestToken(as user: String = "alice") async throws -> FakeOAuth1Credentials {
        var credentials = try await requestToken()
        let response = try await authorize(credentials.token, screenName: user)
        try #require(response.status == 302, "authorize: \(response.status) \(response.text)")
        let query = response.locationQuery
        #expect(query.first(named: "oauth_token") == credentials.token)
        credentials.verifier = try #require(query.first(named: "oauth_verifier"))
        return credentials
    }

    /// POSTs a signed `access_token` request with the request token and `verifier` (nil sends none).
    func accessTokenResponse(
        _ credentials: FakeOAuth1Credentials, verifier: String?, timestamp: Int64? = nil, nonce: String? = nil
    ) async throws -> OutboundResponse {
        let header = try signer.authorizationHeader(
            method: "POST", url: url("access_token"), token: credentials.token, tokenSecret: credentials.secret,
            verifier: verifier, nonce: nonce, timestamp: timestamp)
        return try await http.postForm(url("access_token"), [], headers: ["Authorization": header.value])
    }

    /// An access token for `user`, through request_token, auto-approve and access_token.
    func accessToken(as user: String = "alice") async throws -> FakeOAuth1Credentials {
        let approved = try await approvedRequestToken(as: user)
        let response = try await accessTokenResponse(approved, verifier: approved.verifier)
        try #require(response.status == 200, "access_token: \(response.status) \(response.text)")
        let fields = response.formFields
        #expect(fields.first(named: "screen_name") == user)
        return FakeOAuth1Credentials(
            token: try #require(fields.first(named: "oauth_token")),
            secret: try #require(fields.first(named: "oauth_token_secret")))
    }

    /// GETs `verify_credentials.json` with `query`, signed with the access token; `sentQuery` replaces the
    /// query actually sent (to tamper after signing).
    func verifyCredentialsResponse(
        _ credentials: FakeOAuth1Credentials, query: [URLFormField] = [], sentQuery: [URLFormField]? = nil,
        timestamp: Int64? = nil, nonce: String? = nil
    ) async throws -> OutboundResponse {
        let base = url("account/verify_credentials.json")
        let signedURL = query.isEmpty ? base : base + "?" + FormURLEncoding.encode(query)
        let sent = sentQuery ?? query
        let sentURL = sent.isEmpty ? base : base + "?" + FormURLEncoding.encode(sent)
        let header = try signer.authorizationHeader(
            method: "GET", url: signedURL, token: credentials.token, tokenSecret: credentials.secret, nonce: nonce,
            timestamp: timestamp)
        return try await http.get(sentURL, headers: ["Authorization": header.value])
    }
}
