import TestSupport
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerCrypto
@testable import AuthHandlerHTTP
@testable import AuthHandlerProtocols
@testable import auth_handler

struct OAuth2TokenClientTests {
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let secret = "p:ss+w/rd word"

    static func exchange(
        _ http: ScriptedHTTP, authentication: OAuth2ClientAuthentication = .clientSecretBasic(secret)
    ) async throws(OAuth2ClientError) -> OAuth2TokenClient.Answer {
        let client = OAuth2TokenClient(
            endpoint: "https://idp.example/token", clientID: "client:id", authentication: authentication, http: http)
        return try await client.exchange(
            code: "SplxlOBeZQQYbYS6WxSbIA", redirectURI: "https://auth.example.com/__/auth/handler",
            codeVerifier: verifier)
    }

    static let okJSON = OutboundResponse.json(
        200,
        #"{"access_token":"SlAV32hkKG","token_type":"Bearer","refresh_token":"8xLOxBtZp8","expires_in":3600,"id_token":"eyJ.a.b","scope":"openid email"}"#
    )

    @Test func basicAuthenticationFormEncodesIDAndSecret() async throws {
        let http = ScriptedHTTP(responses: Self.okJSON)
        let answer = try await Self.exchange(http)
        #expect(
            IdPCredential(answer)
                == IdPCredential(
                    accessToken: "SlAV32hkKG", idToken: "eyJ.a.b", refreshToken: "8xLOxBtZp8", expiresIn: 3600,
                    scope: "openid email"))
        #expect(answer.tokenType == "Bearer")

        let request = try #require(http.requests.first)
        #expect(request.method == "POST")
        #expect(request.url == "https://idp.example/token")
        #expect(request.headers["Accept"] == "application/json")
        #expect(request.headers["Content-Type"] == "application/x-www-form-urlencoded")
        // RFC 6749 §2.3.1: base64("client%3Aid:p%3Ass%2Bw%2Frd%20word").
        let authorization = try #require(request.headers["Authorization"])
        #expect(authorization == "Basic " + Base64.encode(Array("client%3Aid:p%3Ass%2Bw%2Frd%20word".utf8)))
        let decoded = try #require(Base64.decode(String(authorization.dropFirst(6))))
        #expect(String(decoding: decoded, as: UTF8.self) == "client%3Aid:p%3Ass%2Bw%2Frd%20word")
        #expect(
            request.formFields == [
                URLFormField(name: "grant_type", value: "authorization_code"),
                URLFormField(name: "code", value: "SplxlOBeZQQYbYS6WxSbIA"),
                URLFormField(name: "redirect_uri", value: "https://auth.example.com/__/auth/handler"),
                URLFormField(name: "code_verifier", value: Self.verifier),
            ])
    }

    @Test func postAuthenticationSendsTheSecretInTheBody() async throws {
        let http = ScriptedHTTP(responses: Self.okJSON)
        _ = try await Self.exchange(http, authentication: .clientSecretPost(Self.secret))
        let request = try #require(http.requests.first)
        #expect(request.headers["Authorization"] == nil)
        #expect(request.formFields.first(named: "client_id") == "client:id")
        #expect(request.formFields.first(named: "client_secret") == "p:ss+w/rd word")
        #expect(request.formFields.first(named: "code_verifier") == Self.verifier)
    }

    @Test func noneSendsOnlyTheClientID() async throws {
        let http = ScriptedHTTP(responses: Self.okJSON)
        _ = try await Self.exchange(http, authentication: .none)
        let request = try #require(http.requests.first)
        #expect(request.headers["Authorization"] == nil)
        #expect(request.formFields.first(named: "client_id") == "client:id")
        #expect(request.formFields.first(named: "client_secret") == nil)
        #expect(request.formFields.first(named: "code_verifier") == Self.verifier)
    }

    @Test func invalidGrantKeepsTheCodeAndASanitizedDescription() async {
        let http = ScriptedHTTP(
            responses: .json(
                400,
                #"{"error":"invalid_grant","error_description":"code SplxlOBeZQQYbYS6WxSbIA expired\n\u0007"}"#))
        do {
            _ = try await Self.exchange(http)
            Issue.record("expected invalid_grant")
        } catch {
            #expect(
                error
                    == .providerError(
                        endpoint: .token, status: 400, code: "invalid_grant", description: "code <redacted> expired??")
            )
            #expect(error.providerCode == "invalid_grant")
            #expect(!error.description.contains("SplxlOBeZQQYbYS6WxSbIA"))
        }
    }

    /// A secret with `+ / = % :` is form-encoded inside Basic auth (RFC 6749 §2.3.1); a provider that does not decode
    /// it answers unauthorized_client, so the hint names that cause and client_secret_post beside the grant.
    @Test func unauthorizedClientNamesTheFormEncodedBasicSecret() async {
        let http = ScriptedHTTP(responses: .json(400, #"{"error":"unauthorized_client"}"#))
        do {
            _ = try await Self.exchange(http)
            Issue.record("expected unauthorized_client")
        } catch {
            #expect(error.providerCode == "unauthorized_client")
            #expect(error.description.contains("authorization code grant"))
            #expect(error.description.contains("+ / = % or :"))
            #expect(error.description.contains("RFC 6749 §2.3.1"))
            #expect(error.description.hasSuffix("set tokenEndpointAuth to client_secret_post"))
        }
    }

    /// The IdP received the code and secret form-encoded (`p%3Ass%2Bw%2Frd%20word`); an echo of that form, or of
    /// a non-ASCII secret, must be scrubbed too.
    @Test func echoedFormEncodedSecretsAreRedacted() async {
        let http = ScriptedHTTP(
            responses: .json(
                400, #"{"error":"invalid_client","error_description":"bad client_secret=p%3Ass%2Bw%2Frd%20word"}"#))
        do {
            _ = try await Self.exchange(http, authentication: .clientSecretPost(Self.secret))
            Issue.record("expected invalid_client")
        } catch {
            #expect(!error.description.contains("p%3Ass%2Bw%2Frd%20word"))
            #expect(error.description.contains("<redacted>"))
        }
    }

    @Test func descriptionsAreBounded() async {
        let long = String(repeating: "x", count: 5000)
        let http = ScriptedHTTP(
            responses: .json(400, #"{"error":"invalid_request","error_description":"\#(long)"}"#))
        await #expect {
            try await Self.exchange(http)
        } throws: { error in
            guard case .providerError(_, _, "invalid_request", let description?) = error as? OAuth2ClientError
            else { return false }
            return description.utf8.count == OAuth2ClientError.maximumDescriptionLength && description.hasSuffix("...")
        }
    }

    @Test func serverErrorWithoutBodyKeepsTheStatus() async {
        let http = ScriptedHTTP(responses: OutboundResponse(status: 500))
        await #expect(throws: OAuth2ClientError.httpStatus(endpoint: .token, status: 500)) {
            try await Self.exchange(http)
        }
    }

    @Test func badJSONIsAnInvalidResponse() async {
        let http = ScriptedHTTP(responses: .json(200, #"{"access_token": "#))
        await #expect {
            try await Self.exchange(http)
        } throws: { error in
            guard case .invalidResponse(.token, 200, _) = error as? OAuth2ClientError else { return false }
            return true
        }
    }

    @Test func missingAccessTokenIsRefused() async {
        let http = ScriptedHTTP(responses: .json(200, #"{"token_type":"Bearer","id_token":"a.b.c"}"#))
        await #expect(throws: OAuth2ClientError.missingAccessToken(status: 200)) {
            try await Self.exchange(http)
        }
    }

    @Test func tokenTypeMustBeBearerInAnyCase() async throws {
        let lower = ScriptedHTTP(responses: .json(200, #"{"access_token":"a","token_type":"bearer"}"#))
        #expect(try await Self.exchange(lower).tokenType == "bearer")
        let absent = ScriptedHTTP(responses: .json(200, #"{"access_token":"a"}"#))
        #expect(try await Self.exchange(absent).accessToken == "a")
        let mac = ScriptedHTTP(responses: .json(200, #"{"access_token":"a","token_type":"mac"}"#))
        await #expect(throws: OAuth2ClientError.unsupportedTokenType("mac")) {
            try await Self.exchange(mac)
        }
    }

    @Test func gitHubFormAnswersAreRead() async throws {
        let http = ScriptedHTTP(
            responses: .form(
                200,
                "access_token=gho_16C7e42F292c6912E7710c838347Ae178B4a&scope=read%3Auser%2Cuser%3Aemail&token_type=bearer"
            ))
        let answer = try await Self.exchange(http)
        #expect(answer.accessToken == "gho_16C7e42F292c6912E7710c838347Ae178B4a")
        #expect(answer.scope == "read:user,user:email")
        #expect(answer.idToken == nil)
    }

    @Test func gitHubErrorsWithStatus200AreErrors() async {
        let form = ScriptedHTTP(
            responses: .form(
                200, "error=bad_verification_code&error_description=The+code+passed+is+incorrect+or+expired."))
        await #expect(
            throws: OAuth2ClientError.providerError(
                endpoint: .token, status: 200, code: "bad_verification_code",
                description: "The code passed is incorrect or expired.")
        ) {
            try await Self.exchange(form)
        }
        let json = ScriptedHTTP(responses: .json(200, #"{"error":"bad_verification_code"}"#))
        await #expect(
            throws: OAuth2ClientError.providerError(
                endpoint: .token, status: 200, code: "bad_verification_code", description: nil)
        ) {
            try await Self.exchange(json)
        }
    }

    @Test func expiresInMayBeAString() async throws {
        let http = ScriptedHTTP(responses: .json(200, #"{"access_token":"a","expires_in":"5183944"}"#))
        #expect(try await Self.exchange(http).expiresIn == 5_183_944)
    }

    @Test func userInfoSendsTheBearerAndMapsErrors() async throws {
        let http = ScriptedHTTP(
            responses: .json(200, #"{"sub":"248289761001","name":"Jane Doe"}"#),
            OutboundResponse(
                status: 401,
                headers: ["WWW-Authenticate": #"Bearer realm="example", error="invalid_token", error_description="x""#]),
            OutboundResponse(status: 503))
        let client = OAuth2UserInfoClient(http: http)
        let document = try await client.fetch(url: "https://idp.example/userinfo", accessToken: "SlAV32hkKG")
        #expect(document["sub"]?.stringValue == "248289761001")
        let request = try #require(http.requests.first)
        #expect(request.method == "GET")
        #expect(request.headers["Authorization"] == "Bearer SlAV32hkKG")
        #expect(request.headers["Accept"] == "application/json")

        await #expect(
            throws: OAuth2ClientError.providerError(
                endpoint: .userInfo, status: 401, code: "invalid_token", description: nil)
        ) {
            try await client.fetch(url: "https://idp.example/userinfo", accessToken: "SlAV32hkKG")
        }
        await #expect(throws: OAuth2ClientError.httpStatus(endpoint: .userInfo, status: 503)) {
            try await client.fetch(url: "https://idp.example/userinfo", accessToken: "SlAV32hkKG")
        }
    }
}
