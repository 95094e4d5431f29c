import Foundation
import TestSupport
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerCrypto
@testable import AuthHandlerHTTP
@testable import auth_handler

/// The `accounts:signInWithIdp` request for each protocol family, as documented at
/// https://cloud.google.com/identity-platform/docs/reference/rest/v1/accounts/signInWithIdp
struct BackendIdentityToolkitRequestTests {
    static let success = #"{"idToken":"fb-id","refreshToken":"fb-refresh","localId":"uid-1","expiresIn":"3600"}"#

    @Test func twitterSendsAccessTokenAndSecretWithEveryFlag() async throws {
        let fetcher = ScriptedHTTP(status: 200, body: Self.success)
        _ = try await BackendFixture.identityToolkit(fetcher).signIn(BackendFixture.twitter())
        let request = try #require(fetcher.onlyRequest())
        #expect(request.method == "POST")
        #expect(
            request.url
                == "http://127.0.0.1:9099/identitytoolkit/v1/accounts:signInWithIdp?key=AIzaSyTEST-api-key-0123456789abcdef"
        )
        #expect(request.headers["Content-Type"] == "application/json")
        #expect(request.timeout == .seconds(10))
        let body = try #require(BackendFixture.json(request))
        // `+`, `/` and `=` in the secret are percent-encoded, so Identity Toolkit decodes the exact secret.
        #expect(
            body["postBody"]?.stringValue
                == "providerId=twitter.com&access_token=783214-twitter-access-token-AbCdEf"
                + "&oauth_token_secret=twitter%2Btoken%2Fsecret%3DXyZ123")
        #expect(body["requestUri"]?.stringValue == "http://127.0.0.1:8080/__/auth/handler")
        #expect(body["returnSecureToken"]?.boolValue == true)
        #expect(body["returnIdpCredential"]?.boolValue == true)
        #expect(body["idToken"] == nil)
        #expect(body["tenantId"] == nil)
        #expect(body.objectValue?.count == 4)
    }

    @Test func oidcSendsIDTokenAndAccessToken() async throws {
        let fetcher = ScriptedHTTP(status: 200, body: Self.success)
        _ = try await BackendFixture.identityToolkit(fetcher).signIn(BackendFixture.google())
        let body = try #require(BackendFixture.json(fetcher.onlyRequest()))
        #expect(
            body["postBody"]?.stringValue
                == "providerId=google.com&id_token=eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxMDAxIn0.google-signature"
                + "&access_token=ya29.google-access-token-0123")
    }

    @Test func oidcWithoutAccessTokenSendsIDTokenAlone() async throws {
        let fetcher = ScriptedHTTP(status: 200, body: Self.success)
        _ = try await BackendFixture.identityToolkit(fetcher).signIn(BackendFixture.google(accessToken: nil))
        let body = try #require(BackendFixture.json(fetcher.onlyRequest()))
        #expect(
            body["postBody"]?.stringValue
                == "providerId=google.com&id_token=eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxMDAxIn0.google-signature")
    }

    @Test func oidcNonceIsAddedWhenGiven() async throws {
        let fetcher = ScriptedHTTP(status: 200, body: Self.success)
        _ = try await BackendFixture.identityToolkit(fetcher).signIn(
            BackendFixture.google(accessToken: nil, nonce: "raw nonce"))
        let body = try #require(BackendFixture.json(fetcher.onlyRequest()))
        #expect(body["postBody"]?.stringValue?.hasSuffix("&nonce=raw%20nonce") == true)
    }

    @Test func oauth2SendsAccessToken() async throws {
        let fetcher = ScriptedHTTP(status: 200, body: Self.success)
        _ = try await BackendFixture.identityToolkit(fetcher).signIn(BackendFixture.github())
        let body = try #require(BackendFixture.json(fetcher.onlyRequest()))
        #expect(body["postBody"]?.stringValue == "providerId=github.com&access_token=gho_github-access-token-4567")
    }

    @Test(arguments: [AuthType.linkViaRedirect, .reauthViaRedirect])
    func linkAndReauthSendTheAppIDTokenAndTenant(authType: AuthType) async throws {
        let fetcher = ScriptedHTTP(status: 200, body: Self.success)
        let backend = BackendFixture.identityToolkit(fetcher, tenantId: "tenant-a1")
        _ = try await backend.signIn(BackendFixture.twitter(authType: authType, idToken: BackendFixture.appIDToken))
        let body = try #require(BackendFixture.json(fetcher.onlyRequest()))
        #expect(body["idToken"]?.stringValue == BackendFixture.appIDToken)
        #expect(body["tenantId"]?.stringValue == "tenant-a1")
    }

    @Test func plainSignInNeverSendsAnIDToken() async throws {
        let fetcher = ScriptedHTTP(status: 200, body: Self.success)
        _ = try await BackendFixture.identityToolkit(fetcher).signIn(
            BackendFixture.twitter(authType: .signInViaRedirect, idToken: BackendFixture.appIDToken))
        let body = try #require(BackendFixture.json(fetcher.onlyRequest()))
        #expect(body["idToken"] == nil)
    }

    @Test func linkWithoutIDTokenIsRefusedBeforeAnyCall() async throws {
        let fetcher = ScriptedHTTP(status: 200, body: Self.success)
        let error = await BackendFixture.error {
            () async throws(BackendError) -> JSONValue? in
            try await BackendFixture.identityToolkit(fetcher).signIn(BackendFixture.twitter(authType: .linkViaRedirect))
        }
        #expect(error == .invalidIDToken)
        #expect(fetcher.requests.isEmpty)
    }

    @Test func incompleteCredentialsAreRefusedBeforeAnyCall() async throws {
        let fetcher = ScriptedHTTP(status: 200, body: Self.success)
        var noSecret = BackendFixture.twitter()
        noSecret.credential.secret = nil
        var noToken = BackendFixture.github()
        noToken.credential.accessToken = ""
        for request in [noSecret, noToken] {
            let error = await BackendFixture.error {
                () async throws(BackendError) -> JSONValue? in
                try await BackendFixture.identityToolkit(fetcher).signIn(request)
            }
            #expect(error?.isTransient == false)
            #expect(error?.code == .backendError)
        }
        #expect(fetcher.requests.isEmpty)
    }

    @Test func trailingSlashOfTheBaseURLIsIgnoredAndTimeoutIsConfigurable() async throws {
        let fetcher = ScriptedHTTP(status: 200, body: Self.success)
        let backend = IdentityToolkitBackend(
            baseURL: try #require(URL(string: "https://identitytoolkit.googleapis.com/v1/")), apiKey: Secret("k+y"),
            fetcher: fetcher, timeout: .seconds(3))
        _ = try await backend.signIn(BackendFixture.github())
        let request = try #require(fetcher.onlyRequest())
        #expect(request.url == "https://identitytoolkit.googleapis.com/v1/accounts:signInWithIdp?key=k%2By")
        #expect(request.timeout == .seconds(3))
    }
}
