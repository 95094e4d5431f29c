import Foundation
import TestSupport
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP
@testable import AuthHandlerProtocols
@testable import auth_handler

struct OAuth1ClientTests {
    static let consumerSecret = "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw"
    static let signer = OAuth1Signer(consumerKey: "cChZNFj6T5R0TigYB9yd1w", consumerSecret: consumerSecret)
    static let callback = "http://127.0.0.1:8080/__/auth/handler"

    static func client(_ http: ScriptedHTTP) -> OAuth1Client {
        OAuth1Client(
            signer: signer, requestTokenEndpoint: "https://api.twitter.com/oauth/request_token",
            authorizeEndpoint: "https://api.twitter.com/oauth/authenticate",
            accessTokenEndpoint: "https://api.twitter.com/oauth/access_token", http: http)
    }

    static func header(_ request: OutboundRequest) throws -> OAuth1AuthorizationHeader {
        try OAuth1AuthorizationHeader(parsing: try #require(request.headers["Authorization"]))
    }

    @Test func requestTokenSendsASignedPOSTWithTheCallback() async throws {
        let http = ScriptedHTTP(
            responses: .form(
                200,
                "oauth_token=NPcudxy0yU5T3tBzho7iCotZ3cnetKwcTIRlX0iwRl0&oauth_token_secret=veNRnAWe6inFuo8o2u8SLLZLjolYDmDP7SzL0YfYI&oauth_callback_confirmed=true"
            ))
        let credentials = try await Self.client(http).requestToken(callback: Self.callback)
        #expect(credentials.token == "NPcudxy0yU5T3tBzho7iCotZ3cnetKwcTIRlX0iwRl0")
        #expect(credentials.secret == "veNRnAWe6inFuo8o2u8SLLZLjolYDmDP7SzL0YfYI")

        let request = try #require(http.requests.first)
        #expect(request.method == "POST")
        #expect(request.url == "https://api.twitter.com/oauth/request_token")
        #expect(request.body.isEmpty)
        let header = try Self.header(request)
        #expect(header.callback == Self.callback)
        #expect(header.consumerKey == "cChZNFj6T5R0TigYB9yd1w")
        #expect(header.token == nil)
        try OAuth1SignatureVerifier().verify(
            header: header, method: "POST", url: request.url, bodyFields: [], consumerSecret: Self.consumerSecret,
            tokenSecret: "")
    }

    @Test(arguments: [
        "oauth_token=t&oauth_token_secret=s",
        "oauth_token=t&oauth_token_secret=s&oauth_callback_confirmed=false",
        "oauth_token=t&oauth_token_secret=s&oauth_callback_confirmed=TRUE",
        "oauth_token=t&oauth_token_secret=s&oauth_callback_confirmed=true&oauth_callback_confirmed=false",
    ])
    func requestTokenWithoutCallbackConfirmationIsRefused(_ body: String) async {
        let http = ScriptedHTTP(responses: .form(200, body))
        await #expect(throws: OAuth1ClientError.callbackNotConfirmed(status: 200)) {
            try await Self.client(http).requestToken(callback: Self.callback)
        }
    }

    @Test func requestTokenRefusalCarriesStatusAndTwitterCodeButNoSecret() async throws {
        let http = ScriptedHTTP(
            responses: .json(401, #"{"errors":[{"code":32,"message":"Could not authenticate you."}]}"#))
        do {
            _ = try await Self.client(http).requestToken(callback: Self.callback)
            Issue.record("expected a refusal")
        } catch {
            #expect(error == .refused(step: .requestToken, status: 401, providerCode: "32"))
            #expect(error.httpStatus == 401)
            #expect(!error.description.contains(Self.consumerSecret))
            #expect(error.description.contains("HTTP 401"))
        }
    }

    @Test func requestTokenWithoutTokenIsMalformed() async {
        let http = ScriptedHTTP(responses: .form(200, "oauth_token_secret=s&oauth_callback_confirmed=true"))
        await #expect {
            try await Self.client(http).requestToken(callback: Self.callback)
        } throws: { error in
            guard case .malformedResponse(.requestToken, 200, _) = error as? OAuth1ClientError else { return false }
            return true
        }
    }

    @Test func transportFailureNamesNoQuery() async {
        let failure = HTTPClientError(
            kind: .transfer(code: 28, text: "Timeout was reached", detail: ""), method: "POST",
            target: "https://api.twitter.com/oauth/request_token")
        let http = ScriptedHTTP([.failure(failure)])
        await #expect(throws: OAuth1ClientError.transport(step: .requestToken, detail: failure.description)) {
            try await Self.client(http).requestToken(callback: Self.callback)
        }
        let cancelled = ScriptedHTTP([.failure(CancellationError())])
        await #expect(throws: OAuth1ClientError.cancelled(step: .requestToken)) {
            try await Self.client(cancelled).requestToken(callback: Self.callback)
        }
    }

    @Test func authorizeURLAddsTheTokenThenCustomParameters() throws {
        let client = Self.client(ScriptedHTTP([]))
        let url = try client.authorizeURL(
            token: "NPcudxy0yU5T3tBzho7iCotZ3cnetKwcTIRlX0iwRl0",
            customParameters: [
                URLFormField(name: "force_login", value: "true"), URLFormField(name: "screen_name", value: "a b&c"),
            ])
        #expect(
            url == "https://api.twitter.com/oauth/authenticate?oauth_token=NPcudxy0yU5T3tBzho7iCotZ3cnetKwcTIRlX0iwRl0"
                + "&force_login=true&screen_name=a%20b%26c")
    }

    @Test func authorizeURLKeepsTheEndpointQuery() throws {
        var client = Self.client(ScriptedHTTP([]))
        client.authorizeEndpoint = "http://127.0.0.1:9000/oauth1/authorize?tenant=x"
        #expect(try client.authorizeURL(token: "t") == "http://127.0.0.1:9000/oauth1/authorize?tenant=x&oauth_token=t")
        client.authorizeEndpoint = "https://api.twitter.com/oauth/authenticate#top"
        #expect {
            try client.authorizeURL(token: "t")
        } throws: { error in
            guard case .invalidEndpoint(.authorize, _) = error as? OAuth1ClientError else { return false }
            return true
        }
    }

    @Test func accessTokenSignsWithTheRequestTokenAndVerifier() async throws {
        let http = ScriptedHTTP(
            responses: .form(
                200,
                "oauth_token=6253282-eWudHldSbIaelX7swmsiHImEL4KinwaGloHANdrY&oauth_token_secret=2EEfA6BG3ly3sR3RjE0IBSnlQu4ZrUzPiYKmrkVU"
                    + "&user_id=6253282&screen_name=twitterapi"))
        let credentials = try await Self.client(http).accessToken(
            requestToken: "NPcudxy0yU5T3tBzho7iCotZ3cnetKwcTIRlX0iwRl0", requestTokenSecret: "request-secret",
            verifier: "uw7NjWHT6OJ1MpJOXsHfNxoAhPKpgI8BlYDhxEjIBY")
        #expect(credentials.token == "6253282-eWudHldSbIaelX7swmsiHImEL4KinwaGloHANdrY")
        #expect(credentials.secret == "2EEfA6BG3ly3sR3RjE0IBSnlQu4ZrUzPiYKmrkVU")
        #expect(credentials.userID == "6253282")
        #expect(credentials.screenName == "twitterapi")
        #expect(credentials.extraFields.map(\.name) == ["user_id", "screen_name"])

        let request = try #require(http.requests.first)
        #expect(request.method == "POST")
        let header = try Self.header(request)
        #expect(header.token == "NPcudxy0yU5T3tBzho7iCotZ3cnetKwcTIRlX0iwRl0")
        #expect(header.verifier == "uw7NjWHT6OJ1MpJOXsHfNxoAhPKpgI8BlYDhxEjIBY")
        #expect(header.callback == nil)
        try OAuth1SignatureVerifier().verify(
            header: header, method: "POST", url: request.url, bodyFields: [], consumerSecret: Self.consumerSecret,
            tokenSecret: "request-secret")
    }

    @Test func accessTokenRefusalKeepsTheStatus() async {
        let http = ScriptedHTTP(responses: .text(401, "Invalid request token.", contentType: "text/plain"))
        await #expect(throws: OAuth1ClientError.refused(step: .accessToken, status: 401, providerCode: nil)) {
            try await Self.client(http).accessToken(requestToken: "t", requestTokenSecret: "s", verifier: "v")
        }
    }

    @Test func signedGETSignsTheQueryAndParsesJSON() async throws {
        let http = ScriptedHTTP(responses: .json(200, #"{"id_str":"6253282","screen_name":"twitterapi"}"#))
        let url = "https://api.twitter.com/1.1/account/verify_credentials.json?include_email=true&skip_status=true"
        let document = try await Self.client(http).signedGET(url: url, token: "access", tokenSecret: "access-secret")
        #expect(document["id_str"]?.stringValue == "6253282")

        let request = try #require(http.requests.first)
        #expect(request.method == "GET")
        #expect(request.url == url)
        let header = try Self.header(request)
        #expect(header.token == "access")
        try OAuth1SignatureVerifier().verify(
            header: header, method: "GET", url: url, bodyFields: [], consumerSecret: Self.consumerSecret,
            tokenSecret: "access-secret")
    }

    @Test func signedGETRefusalAndNonJSON() async {
        let refused = ScriptedHTTP(
            responses: .json(401, #"{"errors":[{"code":89,"message":"Invalid or expired token."}]}"#))
        await #expect(throws: OAuth1ClientError.refused(step: .profile, status: 401, providerCode: "89")) {
            try await Self.client(refused).signedGET(url: "https://api.twitter.com/x", token: "t", tokenSecret: "s")
        }
        let html = ScriptedHTTP(responses: .text(200, "<html>", contentType: "text/html"))
        await #expect {
            try await Self.client(html).signedGET(url: "https://api.twitter.com/x", token: "t", tokenSecret: "s")
        } throws: { error in
            (error as? OAuth1ClientError)?.httpStatus == 200
        }
    }
}
