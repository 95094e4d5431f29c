import Foundation
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP
@testable import AuthHandlerStore

struct ConfigDecodingTests {
    @Test func exampleConfigIsValidWithoutWarnings() throws {
        let report = try ConfigLoader(environment: SecretEnvironment(variables: [:]))
            .load(fileAt: ConfigFixture.examplePath)
        #expect(report.problems == [])
        #expect(report.config != nil)
    }

    @Test func exampleConfigDecodesEveryKey() throws {
        let report = try ConfigLoader(environment: SecretEnvironment(variables: [:]))
            .load(fileAt: ConfigFixture.examplePath)
        let config = try #require(report.config)
        #expect(
            config.listen == [ListenAddress(host: "127.0.0.1", port: 8080), ListenAddress(host: "::1", port: 8080)])
        #expect(config.publicURL?.absoluteString == "http://127.0.0.1:8080")
        #expect(config.redirectURI?.absoluteString == "http://127.0.0.1:8080/__/auth/handler")
        #expect(config.store == .sqlite(SQLiteStoreConfig(path: "/var/lib/auth-handler/state.sqlite")))
        #expect(config.sessionTTLSeconds == 600)
        #expect(config.resultTTLSeconds == 120)
        #expect(config.providerCallLimit == 64)
        #expect(
            config.allowedRedirectURLs.map(\.absoluteString) == [
                "https://app.example.com/signed-in", "com.example.app:/auth", "http://127.0.0.1/done",
            ])
        guard case .identityToolkit(let backend) = config.backend else {
            Issue.record("backend is \(config.backend)")
            return
        }
        #expect(backend.url.absoluteString == "https://identitytoolkit.googleapis.com/v1")
        #expect(backend.tenantId == "example-tenant-1a2b3")
        guard case .file(let apiKeyPath) = backend.apiKey else {
            Issue.record("apiKey is \(backend.apiKey)")
            return
        }
        #expect(apiKeyPath.hasPrefix("/") && apiKeyPath.hasSuffix("/Config/example-secrets/identitytoolkit-api-key"))
        #expect(
            Set(config.providers.keys) == [
                "twitter.com", "google.com", "facebook.com", "github.com", "microsoft.com", "apple.com", "oidc.corp",
                "oidc.local", "oauth2.forge", "oauth1.legacy",
            ])

        let twitter = try #require(config.providers["twitter.com"])
        #expect(twitter.protocolKind == .oauth1)
        #expect(twitter.consumerKey == "example-twitter-consumer-key")
        #expect(twitter.signatureMethod == .hmacSHA1)
        #expect(twitter.tokenEndpointAuth == nil)
        #expect(twitter.endpoints.requestToken?.absoluteString == "https://api.twitter.com/oauth/request_token")
        #expect(twitter.endpoints.profile != nil)

        let google = try #require(config.providers["google.com"])
        #expect(google.protocolKind == .oidc)
        #expect(google.scopes == ["openid", "email", "profile"])
        #expect(google.tokenEndpointAuth == .clientSecretPost)
        #expect(google.responseMode == .query)
        #expect(google.issuer?.absoluteString == "https://accounts.google.com")

        let apple = try #require(config.providers["apple.com"])
        #expect(apple.responseMode == .formPost)
        #expect(apple.teamId == "EXAMPLE123")
        #expect(apple.keyId == "EXAMPLEKEY")
        #expect(apple.clientSecret == nil)
        let privateKey = try #require(apple.privateKey).resolve(in: SecretEnvironment(variables: [:]))
        #expect(privateKey.reveal().hasPrefix("-----BEGIN PRIVATE KEY-----"))

        let local = try #require(config.providers["oidc.local"])
        #expect(local.tokenEndpointAuth == ProviderConfig.TokenEndpointAuth.none)
        #expect(local.endpoints.jwks?.absoluteString == "http://127.0.0.1:9000/oidc/jwks")

        let forge = try #require(config.providers["oauth2.forge"])
        #expect(forge.protocolKind == .oauth2)
        #expect(forge.tokenEndpointAuth == nil, "not written: the provider's default applies")
        #expect(config.providers["oauth1.legacy"]?.signatureMethod == .hmacSHA256)

        guard case .file(let stateKeyPath) = config.stateKey else {
            Issue.record("stateKey is \(String(describing: config.stateKey))")
            return
        }
        #expect(stateKeyPath.hasSuffix("/Config/example-secrets/state-key"))
        let stateKey = try #require(config.stateKey).resolve(in: SecretEnvironment(variables: [:]))
        #expect(StateKeyFormat.decode(stateKey)?.count == 32)
        #expect(config.previousStateKeys.count == 1)
        #expect(config.requireResultChallenge)
        #expect(config.startRateLimit == StartRateLimit(perMinute: 30, burst: 10))
        #expect(config.trustedProxies.map(\.description) == ["127.0.0.1", "::1"])
    }

    @Test func listenTakesIPLiteralsAndLocalhost() throws {
        let report = ConfigFixture.report(
            Data(#"{"listen": ["localhost:0", "10.0.0.11:8080", "[::]:8080"], "providers": {}}"#.utf8))
        let config = try #require(report.config, "\(report.problems)")
        #expect(config.listen.map(\.description) == ["localhost:0", "10.0.0.11:8080", "[::]:8080"])
        #expect(config.listen.map(\.numericHost) == ["127.0.0.1", "10.0.0.11", "::"])
    }

    @Test func missingKeysTakeTheDocumentedDefaults() throws {
        let report = ConfigFixture.report(Data(#"{"providers": {}}"#.utf8))
        let config = try #require(report.config)
        #expect(config.listen == [ListenAddress(host: "127.0.0.1", port: 8080)])
        #expect(config.publicURL == nil)
        #expect(config.store == .sqlite(SQLiteStoreConfig(path: nil)))
        #expect(config.sessionTTLSeconds == 600)
        #expect(config.resultTTLSeconds == 120)
        #expect(config.backend == BackendConfig.none)
        #expect(config.stateKey == nil)
        #expect(config.previousStateKeys == [])
        #expect(config.requireResultChallenge == true)
        #expect(config.startRateLimit == StartRateLimit(perMinute: 30, burst: 10))
        #expect(config.trustedProxies == [])
        #expect(report.warnings.map(\.path.description).contains("allowedRedirectURLs"))
    }

    @Test func relativeStorePathIsResolvedAgainstTheConfigDirectory() throws {
        let report = ConfigFixture.report(
            Data(#"{"store": {"kind": "sqlite", "path": "data/state.sqlite"}, "providers": {}}"#.utf8),
            baseDirectory: "/srv/auth")
        #expect(report.config?.store == .sqlite(SQLiteStoreConfig(path: "/srv/auth/data/state.sqlite")))
    }

    @Test func publicURLTrailingSlashIsDropped() throws {
        let report = try ConfigFixture.report(overriding: #"{"publicURL": "https://auth.example.com/"}"#)
        #expect(report.config?.redirectURI?.absoluteString == "https://auth.example.com/__/auth/handler")
    }
}
