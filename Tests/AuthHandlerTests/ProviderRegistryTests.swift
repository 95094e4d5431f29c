import Foundation
import TestSupport
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerCrypto
@testable import AuthHandlerHTTP
@testable import AuthHandlerProtocols

struct ProviderRegistryTests {
    static let secretValue = "registry-secret-value-that-must-not-print"
    static let environment = SecretEnvironment(variables: ["CLIENT_SECRET": secretValue])
    static let secret = SecretReference.environment("CLIENT_SECRET")

    static func url(_ text: String) throws -> URL { try #require(URL(string: text)) }

    static func oauth2(
        _ kind: ProviderConfig.ProtocolKind = .oidc, auth: ProviderConfig.TokenEndpointAuth? = nil,
        issuer: URL? = nil, endpoints: ProviderEndpoints = ProviderEndpoints()
    ) -> ProviderConfig {
        ProviderConfig(
            protocolKind: kind, clientId: "client-1", clientSecret: secret, issuer: issuer, endpoints: endpoints,
            tokenEndpointAuth: auth)
    }

    static func registry(_ providers: [String: ProviderConfig]) throws -> ProviderRegistry {
        try ProviderRegistry(config: AuthHandlerConfig(providers: providers), environment: environment)
    }

    @Test func builtInsGetTheirRealDefaults() throws {
        let registry = try Self.registry([
            "twitter.com": ProviderConfig(
                protocolKind: .oauth1, consumerKey: "ck", consumerSecret: Self.secret, signatureMethod: .hmacSHA1),
            "google.com": Self.oauth2(), "microsoft.com": Self.oauth2(),
            "apple.com": Self.oauth2(), "facebook.com": Self.oauth2(.oauth2), "github.com": Self.oauth2(.oauth2),
        ])
        #expect(
            registry.ids == ["apple.com", "facebook.com", "github.com", "google.com", "microsoft.com", "twitter.com"])
        // Twitter and Facebook return only confirmed addresses; the others need a verified flag (HTTP-API.md §3.3).
        #expect(
            registry.descriptors.values.filter(\.trustsEmail).map(\.id).sorted() == ["facebook.com", "twitter.com"])

        let twitter = try #require(registry["twitter.com"])
        #expect(twitter.protocolKind == .oauth1)
        #expect(twitter.endpoints.requestToken == (try Self.url("https://api.twitter.com/oauth/request_token")))
        #expect(twitter.endpoints.authorize == (try Self.url("https://api.twitter.com/oauth/authenticate")))
        #expect(twitter.endpoints.accessToken == (try Self.url("https://api.twitter.com/oauth/access_token")))
        #expect(
            twitter.endpoints.profile?.absoluteString
                == "https://api.twitter.com/1.1/account/verify_credentials.json?include_email=true&skip_status=true")
        #expect(twitter.signatureMethod == .hmacSHA1)
        #expect(twitter.profileMapping == .twitter)
        #expect(twitter.clientID == "ck")

        let google = try #require(registry["google.com"])
        #expect(google.issuer == .exact("https://accounts.google.com"))
        #expect(google.defaultScopes == ["openid", "email", "profile"])
        #expect(google.idTokenAlgorithms == [.rs256])
        #expect(google.endpoints.token?.absoluteString == "https://oauth2.googleapis.com/token")
        #expect(google.endpoints.jwks?.absoluteString == "https://www.googleapis.com/oauth2/v3/certs")
        #expect(!google.needsDiscovery)
        #expect(google.discoveryIssuer?.absoluteString == "https://accounts.google.com")
        #expect(google.tokenEndpointAuth == .clientSecretBasic)
        #expect(google.responseMode == .query)

        let microsoft = try #require(registry["microsoft.com"])
        #expect(microsoft.issuer == .tenantTemplate("https://login.microsoftonline.com/{tenantid}/v2.0"))
        #expect(
            microsoft.endpoints.authorization?.absoluteString
                == "https://login.microsoftonline.com/common/oauth2/v2.0/authorize")

        let apple = try #require(registry["apple.com"])
        #expect(apple.responseMode == .formPost)
        #expect(apple.usesFormPost)
        #expect(apple.defaultScopes == ["name", "email"])
        #expect(apple.issuer == .exact("https://appleid.apple.com"))
        #expect(apple.endpoints.userInfo == nil)
        #expect(apple.tokenEndpointAuth == .clientSecretPost)

        let facebook = try #require(registry["facebook.com"])
        #expect(
            facebook.endpoints.authorization?.absoluteString
                == "https://www.facebook.com/\(BuiltInProvider.facebookGraphVersion)/dialog/oauth")
        #expect(facebook.endpoints.userInfo?.absoluteString.hasSuffix("/me?fields=id,name,email") == true)
        #expect(facebook.profileMapping == .facebook)
        #expect(facebook.tokenEndpointAuth == .clientSecretPost)
        #expect(facebook.issuer == nil)
        #expect(facebook.idTokenAlgorithms.isEmpty)

        let github = try #require(registry["github.com"])
        #expect(github.defaultScopes == ["read:user", "user:email"])
        #expect(github.endpoints.authorization?.absoluteString == "https://github.com/login/oauth/authorize")
        #expect(github.endpoints.userInfo?.absoluteString == "https://api.github.com/user")
        #expect(github.emailsEndpoint?.absoluteString == "https://api.github.com/user/emails")
        #expect(github.profileMapping == .github)
        #expect(try github.clientAuthentication() == .clientSecretPost(Self.secretValue))
        #expect(try google.clientAuthentication() == .clientSecretBasic(Self.secretValue))
    }

    @Test func everyBuiltInDefaultURLParses() {
        for provider in BuiltInProvider.all {
            let keys = ProviderEndpoints.keys(for: provider.protocolKind)
            let set = keys.filter { provider.endpoints.url(forKey: $0) != nil }
            #expect(set.count >= 2, "\(provider.id)")
            #expect(ProviderConfig.impliedProtocol(forID: provider.id) == provider.protocolKind)
            #expect(ProviderConfig.isBuiltIn(provider.id))
        }
        #expect(Set(BuiltInProvider.ids).count == BuiltInProvider.all.count)
    }

    @Test func endpointOverridesReplaceDefaults() throws {
        let fake = "http://127.0.0.1:41234"
        let registry = try Self.registry([
            "twitter.com": ProviderConfig(
                protocolKind: .oauth1, consumerKey: "ck", consumerSecret: Self.secret,
                endpoints: ProviderEndpoints(
                    requestToken: try Self.url("\(fake)/oauth1/request_token"),
                    profile: try Self.url("\(fake)/oauth1/account/verify_credentials.json")),
                signatureMethod: .hmacSHA256),
            "github.com": Self.oauth2(
                .oauth2, endpoints: ProviderEndpoints(userInfo: try Self.url("\(fake)/github/user"))),
            "google.com": Self.oauth2(endpoints: ProviderEndpoints(token: try Self.url("\(fake)/token"))),
        ])
        let twitter = try #require(registry["twitter.com"])
        #expect(twitter.endpoints.requestToken?.absoluteString == "\(fake)/oauth1/request_token")
        #expect(twitter.endpoints.authorize?.absoluteString == "https://api.twitter.com/oauth/authenticate")
        #expect(twitter.signatureMethod == .hmacSHA256)
        let client = try #require(twitter.oauth1Client(http: ScriptedHTTP([])))
        #expect(client.requestTokenEndpoint == "\(fake)/oauth1/request_token")
        #expect(client.signer.signatureMethod == .hmacSHA256)
        #expect(client.signer.consumerSecret == Self.secretValue)

        #expect(registry["github.com"]?.emailsEndpoint?.absoluteString == "\(fake)/github/user/emails")
        let google = try #require(registry["google.com"])
        #expect(google.endpoints.token?.absoluteString == "\(fake)/token")
        #expect(google.endpoints.authorization?.absoluteString == "https://accounts.google.com/o/oauth2/v2/auth")
    }

    @Test func aDifferentIssuerOnABuiltInDropsTheDefaultEndpoints() throws {
        let issuer = try Self.url("http://127.0.0.1:41234")
        let registry = try Self.registry([
            "google.com": Self.oauth2(
                issuer: issuer, endpoints: ProviderEndpoints(jwks: try Self.url("\(issuer)/jwks"))),
            "microsoft.com": Self.oauth2(issuer: try Self.url("https://login.microsoftonline.com/common/v2.0")),
        ])
        let google = try #require(registry["google.com"])
        #expect(google.issuer == .exact("http://127.0.0.1:41234"))
        #expect(google.endpoints.authorization == nil)
        #expect(google.endpoints.jwks?.absoluteString == "http://127.0.0.1:41234/jwks")
        #expect(google.needsDiscovery)
        #expect(google.discoveryIssuer == issuer)
        #expect(google.idTokenAlgorithms == [.rs256])

        let microsoft = try #require(registry["microsoft.com"])
        #expect(microsoft.issuer == .tenantTemplate("https://login.microsoftonline.com/{tenantid}/v2.0"))
        #expect(!microsoft.needsDiscovery)
        #expect(microsoft.discoveryIssuer?.absoluteString == "https://login.microsoftonline.com/common/v2.0")
    }

    @Test func customProvidersUseTheirConfig() throws {
        let registry = try Self.registry([
            "oidc.corp": ProviderConfig(
                protocolKind: .oidc, clientId: "corp", issuer: try Self.url("https://login.corp.example"),
                tokenEndpointAuth: ProviderConfig.TokenEndpointAuth.none, responseMode: .formPost),
            "oauth2.forge": ProviderConfig(
                protocolKind: .oauth2, clientId: "forge", clientSecret: Self.secret,
                endpoints: ProviderEndpoints(
                    authorization: try Self.url("https://forge.example/login/oauth/authorize"),
                    token: try Self.url("https://forge.example/login/oauth/access_token"),
                    userInfo: try Self.url("https://forge.example/api/user")),
                scopes: ["read"], tokenEndpointAuth: .clientSecretBasic),
            "oauth1.legacy": ProviderConfig(
                protocolKind: .oauth1, consumerKey: "legacy", consumerSecret: .inline(Secret("legacy-secret")),
                endpoints: ProviderEndpoints(
                    requestToken: try Self.url("https://legacy.example/rt"),
                    authorize: try Self.url("https://legacy.example/auth"),
                    accessToken: try Self.url("https://legacy.example/at")),
                signatureMethod: .plaintext, trustEmail: true),
        ])
        let corp = try #require(registry["oidc.corp"])
        #expect(!corp.isBuiltIn)
        #expect(corp.needsDiscovery)
        #expect(corp.discoveryIssuer?.absoluteString == "https://login.corp.example")
        #expect(corp.issuer == .exact("https://login.corp.example"))
        #expect(corp.defaultScopes == ["openid", "email", "profile"])
        #expect(corp.idTokenAlgorithms == [.rs256, .es256])
        #expect(corp.clientSecret == nil)
        #expect(try corp.clientAuthentication() == OAuth2ClientAuthentication.none)
        #expect(corp.usesFormPost)
        #expect(corp.profileMapping == .oidc)

        let forge = try #require(registry["oauth2.forge"])
        #expect(forge.profileMapping == .oauth2UserInfo)
        #expect(forge.defaultScopes == ["read"])
        #expect(forge.emailsEndpoint == nil)
        #expect(try forge.clientAuthentication() == .clientSecretBasic(Self.secretValue))
        #expect(forge.issuer == nil)

        let legacy = try #require(registry["oauth1.legacy"])
        #expect(legacy.signatureMethod == .plaintext)
        #expect(legacy.profileMapping == .twitter)
        // Only the configured trustEmail, or the catalogue, lets an `email` without a verified flag through.
        #expect(legacy.trustsEmail)
        #expect(!forge.trustsEmail && !corp.trustsEmail)
        #expect(legacy.oauth1Client(http: ScriptedHTTP([]))?.accessTokenEndpoint == "https://legacy.example/at")
        #expect(forge.oauth1Client(http: ScriptedHTTP([])) == nil)
    }

    @Test func everyProblemIsReportedWithItsProviderAndNoSecret() throws {
        let config = AuthHandlerConfig(providers: [
            "google.com": ProviderConfig(
                protocolKind: .oidc, clientId: "g", clientSecret: .environment("UNSET_VARIABLE"),
                tokenEndpointAuth: .clientSecretBasic),
            "oauth2.forge": ProviderConfig(
                protocolKind: .oauth2, clientId: "", clientSecret: Self.secret, tokenEndpointAuth: .clientSecretPost),
            "oidc.bare": ProviderConfig(protocolKind: .oidc, clientId: "b", clientSecret: Self.secret),
            "twitter.com": ProviderConfig(protocolKind: .oauth1, consumerKey: "ck", consumerSecret: Self.secret),
        ])
        do {
            _ = try ProviderRegistry(config: config, environment: Self.environment)
            Issue.record("expected problems")
        } catch {
            #expect(
                error.problems.map { "\($0.providerID) \($0.key)" } == [
                    "google.com clientSecret", "oauth2.forge endpoints.authorization", "oauth2.forge endpoints.token",
                    "oauth2.forge clientId", "oidc.bare endpoints.authorization", "oidc.bare endpoints.token",
                    "oidc.bare endpoints.jwks",
                ])
            #expect(
                error.description.contains("providers.google.com.clientSecret: environment variable UNSET_VARIABLE"))
            #expect(!error.description.contains(Self.secretValue))
        }
    }

    @Test func appleGeneratesItsClientSecretFromTheKey() throws {
        let key = try SigningKey.generate(.es256)
        let clock = TestClock(Date(timeIntervalSince1970: 1_790_000_000))
        var apple = ProviderConfig(
            protocolKind: .oidc, clientId: "com.example.web", responseMode: .formPost)
        apple.teamId = "DEF123GHIJ"
        apple.keyId = "ABC123DEFG"
        apple.privateKey = .inline(Secret(try key.pkcs8PEM()))
        let registry = try ProviderRegistry(
            config: AuthHandlerConfig(providers: ["apple.com": apple]), environment: Self.environment,
            now: clock.read)
        let descriptor = try #require(registry["apple.com"])
        guard case .clientSecretPost(let secret) = try descriptor.clientAuthentication() else {
            Issue.record("Apple takes the secret in the body")
            return
        }
        let jws = try CompactJWS(parsing: secret)
        #expect(key.publicKey.verify(.es256, signature: jws.signature, message: jws.signingInput))
        let claims = try #require(JSONValue.parse(jws.payload))
        #expect(claims["sub"]?.stringValue == "com.example.web")
        #expect(claims["iss"]?.stringValue == "DEF123GHIJ")

        apple.privateKey = .inline(Secret("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----"))
        #expect {
            try ProviderRegistry(
                config: AuthHandlerConfig(providers: ["apple.com": apple]), environment: Self.environment)
        } throws: { error in
            (error as? ProviderRegistryError)?.problems.map(\.key) == ["privateKey"]
        }
    }

    @Test func authorizationRequestsFollowTheDescriptor() throws {
        let registry = try Self.registry(["apple.com": Self.oauth2(), "github.com": Self.oauth2(.oauth2)])
        let apple = try #require(registry["apple.com"])
        let request = apple.authorizationRequest(
            endpoint: try #require(apple.endpoints.authorization), redirectURI: "https://a.example/__/auth/handler",
            state: "s", codeChallenge: "c", nonce: "n")
        #expect(request.usesFormPost)
        #expect(request.nonce == "n")
        #expect(request.scopes == ["name", "email"])
        let github = try #require(registry["github.com"])
        let plain = github.authorizationRequest(
            endpoint: try #require(github.endpoints.authorization), redirectURI: "r", scopes: ["repo"], state: "s",
            codeChallenge: "c", nonce: "n")
        #expect(plain.nonce == nil)
        #expect(!plain.usesFormPost)
        #expect(plain.scopes == ["repo"])
    }

    @Test func tenantTemplatesNeedAWellFormedTenant() {
        let issuer = ExpectedIssuer.tenantTemplate("https://login.microsoftonline.com/{tenantid}/v2.0")
        #expect(
            issuer.accepts(
                "https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0",
                tenantID: "9188040d-6c67-4c5b-b112-36a304b66dad"))
        #expect(!issuer.accepts("https://login.microsoftonline.com/other/v2.0", tenantID: "9188040d"))
        #expect(!issuer.accepts("https://login.microsoftonline.com/{tenantid}/v2.0", tenantID: nil))
        #expect(!issuer.accepts("https://evil.example/v2.0", tenantID: "x/../../evil"))
        #expect(ExpectedIssuer.exact("https://accounts.google.com").accepts("https://accounts.google.com"))
        #expect(!ExpectedIssuer.exact("https://accounts.google.com").accepts("https://accounts.google.com/"))
    }

    /// An explicit `client_secret_basic` is honoured even where the provider's default is the form post.
    @Test func explicitTokenEndpointAuthWinsOverTheProviderDefault() throws {
        let registry = try Self.registry(["github.com": Self.oauth2(.oauth2, auth: .clientSecretBasic)])
        let github = try #require(registry["github.com"])
        #expect(try github.clientAuthentication() == .clientSecretBasic(Self.secretValue))
    }
}
