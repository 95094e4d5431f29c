import Foundation
import TestSupport
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerCrypto
@testable import AuthHandlerHTTP
@testable import AuthHandlerSystem

extension ScriptedHTTP {
    /// The only request sent; records an issue when there was not exactly one.
    func onlyRequest(sourceLocation: SourceLocation = #_sourceLocation) -> OutboundRequest? {
        let requests = self.requests
        #expect(requests.count == 1, "expected exactly one request", sourceLocation: sourceLocation)
        return requests.first
    }
}

/// Realistic values that must never show up in an error message.
enum BackendFixture {
    static let apiKey = "AIzaSyTEST-api-key-0123456789abcdef"
    static let webhookSecret = "whsec_test_secret"
    static let twitterToken = "783214-twitter-access-token-AbCdEf"
    static let twitterSecret = "twitter+token/secret=XyZ123"
    static let googleIDToken = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxMDAxIn0.google-signature"
    static let googleAccessToken = "ya29.google-access-token-0123"
    static let githubToken = "gho_github-access-token-4567"
    static let appIDToken = "eyJhbGciOiJSUzI1NiJ9.app-firebase-id-token.sig"
    static let requestUri = "http://127.0.0.1:8080/__/auth/handler"
    static let baseURL = URL(string: "http://127.0.0.1:9099/identitytoolkit/v1")!

    static var secrets: [String] {
        [apiKey, webhookSecret, twitterToken, twitterSecret, googleIDToken, googleAccessToken, githubToken, appIDToken]
    }

    static func twitter(authType: AuthType = .signInViaRedirect, idToken: String? = nil) -> BackendSignInRequest {
        BackendSignInRequest(
            providerId: "twitter.com", protocolKind: .oauth1,
            credential: IdPCredential(accessToken: twitterToken, secret: twitterSecret),
            profile: ProviderProfile(id: "783214", screenName: "twitterdev", displayName: "Twitter Dev"),
            authType: authType, requestUri: requestUri, idToken: idToken, eventId: "e1")
    }

    static func google(accessToken: String? = googleAccessToken, nonce: String? = nil) -> BackendSignInRequest {
        BackendSignInRequest(
            providerId: "google.com", protocolKind: .oidc,
            credential: IdPCredential(accessToken: accessToken, idToken: googleIDToken, nonce: nonce),
            profile: ProviderProfile(id: "1001", email: "alice@example.com"), requestUri: requestUri)
    }

    static func github() -> BackendSignInRequest {
        BackendSignInRequest(
            providerId: "github.com", protocolKind: .oauth2, credential: IdPCredential(accessToken: githubToken),
            profile: ProviderProfile(id: "583231", screenName: "octocat"), requestUri: requestUri)
    }

    static func identityToolkit(_ fetcher: ScriptedHTTP, tenantId: String? = nil) -> IdentityToolkitBackend {
        IdentityToolkitBackend(baseURL: baseURL, apiKey: Secret(apiKey), tenantId: tenantId, fetcher: fetcher)
    }

    /// The JSON body of `request`, or nil.
    static func json(_ request: OutboundRequest?) -> JSONValue? {
        request.flatMap { JSONValue.parse($0.body) }
    }

    /// The error `work` throws, or nil (recording an issue) when it succeeds.
    static func error(
        sourceLocation: SourceLocation = #_sourceLocation, _ work: () async throws(BackendError) -> JSONValue?
    ) async -> BackendError? {
        do {
            let value = try await work()
            Issue.record("expected a BackendError, got \(String(describing: value))", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
        }
    }

    /// Records an issue when the error's text carries any fixture secret.
    static func expectNoSecrets(in error: BackendError?, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let error else { return }
        for text in [error.description, String(describing: error), "\(error)"] {
            for secret in secrets + secrets.map(FormURLEncoding.percentEncode) {
                #expect(!text.contains(secret), "error text leaks a secret: \(text)", sourceLocation: sourceLocation)
            }
        }
    }
}
