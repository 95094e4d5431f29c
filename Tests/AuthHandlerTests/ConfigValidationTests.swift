import Foundation
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerCrypto
@testable import AuthHandlerHTTP
@testable import AuthHandlerProtocols
@testable import AuthHandlerStore

/// One bad value and the problem it must produce.
struct ConfigRuleCase: Sendable, CustomTestStringConvertible {
    /// Top-level keys replacing those of the base fixture, as a JSON object.
    let overrides: String
    /// The exact JSON path the problem must name.
    let path: String
    /// Text the message must contain (what is expected).
    let expects: String

    var testDescription: String { path }
}

struct ConfigValidationTests {
    static let ruleCases: [ConfigRuleCase] = [
        .init(overrides: #"{"publicURL": "http//auth.example.com"}"#, path: "publicURL", expects: "absolute http(s)"),
        .init(overrides: #"{"publicURL": "ftp://auth.example.com"}"#, path: "publicURL", expects: "absolute http(s)"),
        .init(overrides: #"{"publicURL": "https://auth.example.com?a=1"}"#, path: "publicURL", expects: "query"),
        .init(overrides: #"{"publicURL": "https://auth.example.com#top"}"#, path: "publicURL", expects: "fragment"),
        .init(overrides: #"{"publicURL": 8080}"#, path: "publicURL", expects: "expected a string"),
        .init(overrides: #"{"listen": ["127.0.0.1"]}"#, path: "listen[0]", expects: "HOST:PORT"),
        .init(overrides: #"{"listen": ["127.0.0.1:80", "::1:80"]}"#, path: "listen[1]", expects: "[V6]:PORT"),
        .init(overrides: #"{"listen": ["127.0.0.1:65536"]}"#, path: "listen[0]", expects: "HOST:PORT"),
        .init(overrides: #"{"listen": []}"#, path: "listen", expects: "at least one"),
        .init(overrides: #"{"listen": ["myhost:8080"]}"#, path: "listen[0]", expects: "use an IP address"),
        .init(overrides: #"{"listen": ["[myhost]:8080"]}"#, path: "listen[0]", expects: "use an IP address"),
        .init(overrides: #"{"sessionTTLSeconds": 0}"#, path: "sessionTTLSeconds", expects: "positive whole number"),
        .init(overrides: #"{"resultTTLSeconds": -5}"#, path: "resultTTLSeconds", expects: "positive whole number"),
        .init(overrides: #"{"resultTTLSeconds": 1.5}"#, path: "resultTTLSeconds", expects: "positive whole number"),
        .init(overrides: #"{"sessionTTLSeconds": "600"}"#, path: "sessionTTLSeconds", expects: "got a string"),
        .init(overrides: #"{"providerCallLimit": 0}"#, path: "providerCallLimit", expects: "positive whole number"),
        .init(
            overrides: #"{"allowedRedirectURLs": ["https://a.example/x", "com.example.app:/ok", "not a url"]}"#,
            path: "allowedRedirectURLs[2]", expects: "absolute URL"),
        .init(
            overrides: #"{"allowedRedirectURLs": ["https://a.example/x#frag"]}"#, path: "allowedRedirectURLs[0]",
            expects: "fragment"),
        .init(overrides: #"{"allowedRedirectURLs": ["https:///x"]}"#, path: "allowedRedirectURLs[0]", expects: "host"),
        .init(
            overrides: #"{"store": {"kind": "mongo"}}"#, path: "store.kind", expects: #""sqlite", "memory", "redis""#),
        .init(
            overrides: #"{"store": {"kind": "redis"}, "stateKey": {"env": "FIXTURE_SECRET"}}"#, path: "store.url",
            expects: "required"),
        .init(
            overrides: #"{"store": {"kind": "redis", "url": "redis://127.0.0.1:6379/0"}}"#, path: "stateKey",
            expects: "every instance must hold the same key"),
        .init(
            overrides: #"{"store": {"kind": "redis", "url": "unix:/r.sock", "commandTimeoutSeconds": 0}}"#,
            path: "store.commandTimeoutSeconds", expects: "expected a positive whole number of seconds"),
        .init(
            overrides: #"{"store": {"kind": "redis", "url": "unix:/r.sock", "commandTimeoutSeconds": 1.5}}"#,
            path: "store.commandTimeoutSeconds", expects: "not a whole number"),
        .init(
            overrides: #"{"store": {"kind": "redis", "url": "unix:/r.sock", "commandTimeoutSeconds": "2"}}"#,
            path: "store.commandTimeoutSeconds", expects: "got a string"),
        .init(
            overrides: #"{"store": {"kind": "redis", "url": "unix:/r.sock", "commandTimeoutSeconds": 61}}"#,
            path: "store.commandTimeoutSeconds", expects: "expected 1 to 60 seconds"),
        .init(
            overrides: #"{"store": {"kind": "redis", "url": "rediss://cache.example:6380/0"}}"#, path: "store.url",
            expects: "TLS is not supported by this build's hiredis (0.14)"),
        .init(
            overrides: #"{"store": {"kind": "redis", "url": "redis://u:pw@127.0.0.1/0"}}"#, path: "store.url",
            expects: "store.password"),
        .init(
            overrides: #"{"store": {"kind": "redis", "url": "redis://h/x"}}"#, path: "store.url", expects: "database"),
        .init(
            overrides: #"{"store": {"kind": "redis", "url": "unix:relative.sock"}}"#, path: "store.url",
            expects: "absolute"),
        .init(
            overrides: #"{"store": {"kind": "redis", "url": "unix:/run/redis.sock?dbx=1"}}"#, path: "store.url",
            expects: "db=N"),
        .init(
            overrides: #"{"store": {"kind": "redis", "url": 6379}}"#, path: "store.url", expects: "expected a string"),
        .init(
            overrides: #"{"store": {"kind": "redis", "url": "redis://h", "password": {"env": "UNSET_VARIABLE"}}}"#,
            path: "store.password.env", expects: "UNSET_VARIABLE"),
        .init(
            overrides: #"{"store": {"kind": "sqlite", "pth": "/x"}}"#, path: "store.pth",
            expects: #"did you mean "path"?"#),
        .init(overrides: #"{"backend": {"kind": "ldap"}}"#, path: "backend.kind", expects: #""identitytoolkit""#),
        .init(
            overrides:
                #"{"backend": {"kind": "webhook", "url": "http://hooks.example.com/x", "secret": {"env": "FIXTURE_SECRET"}}}"#,
            path: "backend.url", expects: "https"),
        .init(
            overrides: #"{"backend": {"kind": "webhook", "secret": {"env": "FIXTURE_SECRET"}}}"#, path: "backend.url",
            expects: "required"),
        .init(
            overrides: #"{"backend": {"kind": "webhook", "url": "https://hooks.example.com"}}"#, path: "backend.secret",
            expects: "required"),
        .init(overrides: #"{"backend": {"kind": "identitytoolkit"}}"#, path: "backend.apiKey", expects: "required"),
        .init(overrides: #"{"providres": {}}"#, path: "providres", expects: #"did you mean "providers"?"#),
        .init(
            overrides: #"{"providers": {"okta.com": {"clientId": "c"}}}"#, path: #"providers["okta.com"]"#,
            expects: "oidc.NAME"),
        .init(
            overrides:
                #"{"providers": {"oidc.corp": {"protocol": "saml", "issuer": "https://corp.example", "clientId": "c", "clientSecret": "x"}}}"#,
            path: #"providers["oidc.corp"].protocol"#, expects: #""oauth1", "oauth2", "oidc""#),
        .init(
            overrides:
                #"{"providers": {"oidc.corp": {"protocol": "oauth2", "issuer": "https://corp.example", "clientId": "c", "clientSecret": "x"}}}"#,
            path: #"providers["oidc.corp"].protocol"#, expects: "does not match"),
        .init(
            overrides:
                #"{"providers": {"oidc.corp": {"issuer": "https://corp.example", "clientId": "c", "clientSecret": "x"}}}"#,
            path: #"providers["oidc.corp"].protocol"#, expects: "required"),
        .init(
            overrides: #"{"providers": {"google.com": {"clientId": "c", "clientSecrett": {"env": "FIXTURE_SECRET"}}}}"#,
            path: #"providers["google.com"].clientSecrett"#, expects: #"did you mean "clientSecret"?"#),
        .init(
            overrides: #"{"providers": {"google.com": {"clientSecret": {"env": "FIXTURE_SECRET"}}}}"#,
            path: #"providers["google.com"].clientId"#, expects: "required"),
        .init(
            overrides: #"{"providers": {"google.com": {"clientId": "c"}}}"#,
            path: #"providers["google.com"].clientSecret"#, expects: "required"),
        .init(
            overrides: #"{"providers": {"twitter.com": {"consumerSecret": {"env": "FIXTURE_SECRET"}}}}"#,
            path: #"providers["twitter.com"].consumerKey"#, expects: "required"),
        .init(
            overrides: #"{"providers": {"twitter.com": {"consumerKey": "k"}}}"#,
            path: #"providers["twitter.com"].consumerSecret"#, expects: "required"),
        .init(
            overrides:
                #"{"providers": {"twitter.com": {"consumerKey": "k", "consumerSecret": {"env": "FIXTURE_SECRET"}, "signatureMethod": "RSA-SHA1"}}}"#,
            path: #"providers["twitter.com"].signatureMethod"#, expects: #""HMAC-SHA1", "HMAC-SHA256", "PLAINTEXT""#),
        .init(
            overrides:
                #"{"providers": {"twitter.com": {"consumerKey": "k", "consumerSecret": {"env": "FIXTURE_SECRET"}, "clientId": "c"}}}"#,
            path: #"providers["twitter.com"].clientId"#, expects: "OAuth 2"),
        .init(
            overrides:
                #"{"providers": {"github.com": {"clientId": "c", "clientSecret": {"env": "FIXTURE_SECRET"}, "tokenEndpointAuth": "private_key_jwt"}}}"#,
            path: #"providers["github.com"].tokenEndpointAuth"#,
            expects: #""client_secret_basic", "client_secret_post", "none""#),
        .init(
            overrides:
                #"{"providers": {"github.com": {"clientId": "c", "clientSecret": {"env": "FIXTURE_SECRET"}, "responseMode": "fragment"}}}"#,
            path: #"providers["github.com"].responseMode"#, expects: #""query", "form_post""#),
        .init(
            overrides:
                #"{"providers": {"github.com": {"clientId": "c", "clientSecret": {"env": "FIXTURE_SECRET"}, "endpoints": {"token": "http://github.example/token"}}}}"#,
            path: #"providers["github.com"].endpoints.token"#, expects: "https"),
        .init(
            overrides:
                #"{"providers": {"github.com": {"clientId": "c", "clientSecret": {"env": "FIXTURE_SECRET"}, "endpoints": {"requestToken": "https://x.example"}}}}"#,
            path: #"providers["github.com"].endpoints.requestToken"#, expects: "authorization, token, userInfo, jwks"),
        .init(
            overrides:
                #"{"providers": {"oauth2.forge": {"protocol": "oauth2", "clientId": "c", "clientSecret": {"env": "FIXTURE_SECRET"}, "endpoints": {"authorization": "https://forge.example/a"}}}}"#,
            path: #"providers["oauth2.forge"].endpoints.token"#, expects: "required"),
        .init(
            overrides:
                #"{"providers": {"oidc.corp": {"protocol": "oidc", "clientId": "c", "clientSecret": {"env": "FIXTURE_SECRET"}}}}"#,
            path: #"providers["oidc.corp"].endpoints.jwks"#, expects: "issuer"),
        .init(
            overrides:
                #"{"providers": {"oauth1.x": {"protocol": "oauth1", "consumerKey": "k", "consumerSecret": {"env": "FIXTURE_SECRET"}}}}"#,
            path: #"providers["oauth1.x"].endpoints.requestToken"#, expects: "required"),
        .init(
            overrides:
                #"{"providers": {"oidc.corp": {"protocol": "oidc", "issuer": "corp.example", "clientId": "c", "clientSecret": {"env": "FIXTURE_SECRET"}}}}"#,
            path: #"providers["oidc.corp"].issuer"#, expects: "absolute URL"),
        .init(
            overrides:
                #"{"providers": {"github.com": {"clientId": "c", "clientSecret": {"env": "FIXTURE_SECRET"}, "scopes": ["read:user email"]}}}"#,
            path: #"providers["github.com"].scopes[0]"#, expects: "whitespace"),
        .init(
            overrides:
                #"{"providers": {"github.com": {"clientId": "c", "clientSecret": {"env": "FIXTURE_SECRET"}, "teamId": "T"}}}"#,
            path: #"providers["github.com"].teamId"#, expects: "apple.com"),
        .init(
            overrides: #"{"providers": {"apple.com": {"clientId": "c", "teamId": "T", "keyId": "K"}}}"#,
            path: #"providers["apple.com"].privateKey"#, expects: "required"),
        .init(
            overrides:
                #"{"providers": {"github.com": {"clientId": "c", "clientSecret": {"env": "UNSET_VARIABLE_X"}}}}"#,
            path: #"providers["github.com"].clientSecret.env"#, expects: "UNSET_VARIABLE_X is not set"),
        .init(
            overrides:
                #"{"providers": {"github.com": {"clientId": "c", "clientSecret": {"file": "/nonexistent/auth-handler/secret"}}}}"#,
            path: #"providers["github.com"].clientSecret.file"#, expects: "does not exist"),
        .init(
            overrides: #"{"providers": {"github.com": {"clientId": "c", "clientSecret": {"credential": "github"}}}}"#,
            path: #"providers["github.com"].clientSecret.credential"#, expects: "CREDENTIALS_DIRECTORY"),
        .init(
            overrides: #"{"providers": {"github.com": {"clientId": "c", "clientSecret": {"file": "/a", "env": "B"}}}}"#,
            path: #"providers["github.com"].clientSecret"#, expects: "exactly one"),
        .init(
            overrides: #"{"providers": {"github.com": {"clientId": "c", "clientSecret": {"path": "/a"}}}}"#,
            path: #"providers["github.com"].clientSecret.path"#, expects: "unknown key"),
        .init(
            overrides: #"{"providers": {"github.com": {"clientId": "c", "clientSecret": 42}}}"#,
            path: #"providers["github.com"].clientSecret"#, expects: #"{"file": PATH}"#),
        .init(overrides: #"{"stateKey": 42}"#, path: "stateKey", expects: #"{"file": PATH}"#),
        .init(overrides: #"{"stateKey": {"env": "FIXTURE_SECRET"}}"#, path: "stateKey", expects: "basenc --base64url"),
        .init(overrides: #"{"stateKey": {"env": "UNSET_STATE_KEY"}}"#, path: "stateKey.env", expects: "is not set"),
        .init(overrides: #"{"previousStateKeys": {"env": "STATE_KEY"}}"#, path: "previousStateKeys", expects: "array"),
        .init(
            overrides: #"{"previousStateKeys": [{"env": "STATE_KEY"}, {"env": "FIXTURE_SECRET"}]}"#,
            path: "previousStateKeys[1]", expects: "43 characters"),
        .init(
            overrides: #"{"requireResultChallenge": "false"}"#, path: "requireResultChallenge",
            expects: "expected true or false"),
        .init(overrides: #"{"startRateLimit": 30}"#, path: "startRateLimit", expects: "expected an object"),
        .init(
            overrides: #"{"startRateLimit": {"perMinute": 0}}"#, path: "startRateLimit.perMinute",
            expects: "positive whole number of starts per minute"),
        .init(
            overrides: #"{"startRateLimit": {"burst": 2.5}}"#, path: "startRateLimit.burst",
            expects: "positive whole number of starts"),
        .init(
            overrides: #"{"startRateLimit": {"perMinute": 30, "bursts": 10}}"#, path: "startRateLimit.bursts",
            expects: #"did you mean "burst"?"#),
        .init(overrides: #"{"trustedProxies": "10.0.0.1"}"#, path: "trustedProxies", expects: "array"),
        .init(
            overrides: #"{"trustedProxies": ["10.0.0.1", "proxy.internal"]}"#, path: "trustedProxies[1]",
            expects: "CIDR block"),
        .init(overrides: #"{"trustedProxies": ["10.0.0.0/33"]}"#, path: "trustedProxies[0]", expects: "IP address"),
        .init(overrides: #"{"trustedProxies": ["[::1]:80"]}"#, path: "trustedProxies[0]", expects: "IP address"),
        .init(
            overrides: #"{"listener": {"requestDeadlineSeconds": 0}}"#, path: "listener.requestDeadlineSeconds",
            expects: "positive whole number of seconds"),
        .init(
            overrides: #"{"listener": {"connectionsPerAddress": -1}}"#, path: "listener.connectionsPerAddress",
            expects: "or 0 for no limit"),
        .init(
            overrides: #"{"listener": {"requestTimeoutSeconds": 5}}"#, path: "listener.requestTimeoutSeconds",
            expects: "unknown key"),
    ]

    /// A valid state key, as `openssl rand 32 | basenc --base64url | tr -d =` prints one.
    static let stateKeyValue = "2KNfMmyAJaCXY91lzRtzOe0bAIq9CgToVcBdVMjjc4g"

    /// The fixture environment plus `STATE_KEY` (valid) and `BAD_STATE_KEY`.
    static func stateKeyReport(overriding overrides: String, badKey: String = "x") throws -> ConfigReport {
        let environment = SecretEnvironment(variables: [
            "FIXTURE_SECRET": ConfigFixture.secretValue, "STATE_KEY": stateKeyValue, "BAD_STATE_KEY": badKey,
        ])
        return ConfigLoader(environment: environment).load(
            data: try ConfigFixture.document(overriding: overrides), baseDirectory: "/")
    }

    /// A count may be written with a zero fraction or an exponent (`60.0`, `6e1`), as the file has always been read;
    /// a fraction is still refused.
    @Test func wholeNumbersWithAFractionOrAnExponentAreCounts() throws {
        let report = ConfigFixture.report(
            Data(
                #"""
                {"providers": {}, "sessionTTLSeconds": 60.0, "resultTTLSeconds": 6e1,
                 "listener": {"requestDeadlineSeconds": 5.0, "connectionsPerAddress": 0.0}}
                """#.utf8))
        #expect(report.errors == [])
        let config = try #require(report.config)
        #expect(config.sessionTTLSeconds == 60 && config.resultTTLSeconds == 60)
        #expect(config.listener == ListenerLimits(requestDeadlineSeconds: 5, connectionsPerAddress: 0))
        let fraction = ConfigFixture.report(Data(#"{"providers": {}, "sessionTTLSeconds": 60.5}"#.utf8))
        #expect(fraction.config == nil)
        #expect(fraction.errors.map(\.path.description) == ["sessionTTLSeconds"])
    }

    @Test func revision2KeysAreReadIntoTypedProperties() throws {
        let report = try Self.stateKeyReport(
            overriding: """
                {"stateKey": {"env": "STATE_KEY"}, "previousStateKeys": [{"env": "STATE_KEY"}],
                 "requireResultChallenge": true, "startRateLimit": {"perMinute": 12, "burst": 3},
                 "trustedProxies": ["10.0.0.0/8", "::1/128", "192.0.2.7"],
                 "listener": {"requestDeadlineSeconds": 5, "connectionsPerAddress": 0}}
                """)
        #expect(report.problems == [])
        let config = try #require(report.config)
        #expect(config.stateKey == .environment("STATE_KEY"))
        #expect(config.previousStateKeys == [.environment("STATE_KEY")])
        #expect(config.requireResultChallenge)
        #expect(config.startRateLimit == StartRateLimit(perMinute: 12, burst: 3))
        #expect(config.trustedProxies.map(\.description) == ["10.0.0.0/8", "::1", "192.0.2.7"])
        #expect(config.listener == ListenerLimits(requestDeadlineSeconds: 5, connectionsPerAddress: 0))
        let applied = config.listener.applied(to: HTTPServerConfiguration())
        #expect(applied.requestDeadlineSeconds == 5 && applied.perIPConnectionLimit == 0)
    }

    @Test(arguments: [
        "", "x", String(stateKeyValue.dropLast()), stateKeyValue + "A", stateKeyValue + "=",
        // 43 characters whose last one carries non-zero padding bits: not the canonical encoding of 32 bytes.
        String(stateKeyValue.dropLast()) + "h",
        // Standard base64 alphabet instead of base64url.
        "+KNfMmyAJaCXY91lzRtzOe0bAIq9CgToVcBdVMjjc4g",
        // 32 characters of text, not 32 bytes of base64url.
        "0123456789abcdef0123456789abcdef",
    ])
    func aStateKeyNotOf32Base64URLBytesIsAnErrorThatSaysHowToMakeOne(_ bad: String) throws {
        let report = try Self.stateKeyReport(overriding: #"{"stateKey": {"env": "BAD_STATE_KEY"}}"#, badKey: bad)
        #expect(report.config == nil)
        let problems = report.errors.filter { $0.path.description.hasPrefix("stateKey") }
        #expect(!problems.isEmpty, "\(report.problems)")
        if !bad.isEmpty {
            #expect(
                problems.map(\.message) == [
                    "the value of environment variable BAD_STATE_KEY is not a state key; "
                        + StateKeyFormat.expectation
                ])
            #expect(bad.count < 8 || problems.allSatisfy { !$0.message.contains(bad) })
        }
    }

    @Test func theStateKeyValueIsNotCheckedWithoutResolvingSecrets() throws {
        let report = ConfigLoader(environment: SecretEnvironment(variables: [:]), resolvesSecrets: false).load(
            data: try ConfigFixture.document(overriding: #"{"stateKey": {"env": "ANY"}}"#), baseDirectory: "/")
        #expect(report.errors == [])
        #expect(report.config?.stateKey == .environment("ANY"))
    }

    @Test func aPlainStringStateKeyIsAcceptedWithAWarning() throws {
        let report = try Self.stateKeyReport(overriding: #"{"stateKey": "\#(Self.stateKeyValue)"}"#)
        #expect(report.errors == [])
        #expect(report.warnings.map(\.path.description) == ["stateKey"])
        #expect(report.warnings.allSatisfy { !$0.description.contains(Self.stateKeyValue) })
    }

    @Test func requireResultChallengeFalseIsAWarningThatNamesEventId() throws {
        let report = try ConfigFixture.report(overriding: #"{"requireResultChallenge": false}"#)
        #expect(report.errors == [])
        #expect(report.config?.requireResultChallenge == false)
        #expect(report.warnings.map(\.path.description) == ["requireResultChallenge"])
        #expect(report.warnings.first?.message.contains("eventId") == true)
    }

    /// HTTP-API.md §3.3: a custom provider may vouch for its `email` with `trustEmail`, warned about; a built-in's
    /// e-mail rule is fixed.
    @Test func trustEmailIsAWarningOnACustomProviderAndAnErrorOnABuiltIn() throws {
        let custom = try ConfigFixture.report(
            overriding: """
                {"providers": {"oauth2.forge": {"protocol": "oauth2", "clientId": "c",
                  "clientSecret": {"env": "FIXTURE_SECRET"}, "trustEmail": true,
                  "endpoints": {"authorization": "https://forge.example/a", "token": "https://forge.example/t"}}}}
                """)
        #expect(custom.errors == [])
        #expect(custom.config?.providers["oauth2.forge"]?.trustEmail == true)
        #expect(custom.warnings.map(\.path.description) == [#"providers["oauth2.forge"].trustEmail"#])
        #expect(custom.warnings.first?.message.contains("verified") == true)
        let off = try ConfigFixture.report(
            overriding: """
                {"providers": {"oidc.corp": {"protocol": "oidc", "clientId": "c", "issuer": "https://corp.example",
                  "clientSecret": {"env": "FIXTURE_SECRET"}, "trustEmail": false}}}
                """)
        #expect(off.problems == [])
        let builtIn = try ConfigFixture.report(
            overriding:
                #"{"providers": {"microsoft.com": {"clientId": "c", "clientSecret": {"env": "FIXTURE_SECRET"}, "trustEmail": true}}}"#
        )
        #expect(builtIn.errors.map(\.path.description) == [#"providers["microsoft.com"].trustEmail"#])
        #expect(builtIn.errors.first?.message.contains("custom providers only") == true)
        let notBoolean = try ConfigFixture.report(
            overriding: """
                {"providers": {"oauth1.legacy": {"protocol": "oauth1", "consumerKey": "k",
                  "consumerSecret": {"env": "FIXTURE_SECRET"}, "trustEmail": "yes",
                  "endpoints": {"requestToken": "https://l.example/r", "authorize": "https://l.example/a",
                                "accessToken": "https://l.example/t"}}}}
                """)
        #expect(notBoolean.errors.map(\.path.description) == [#"providers["oauth1.legacy"].trustEmail"#])
    }

    @Test func trustingEveryAddressIsAWarning() throws {
        let report = try ConfigFixture.report(overriding: #"{"trustedProxies": ["0.0.0.0/0", "::/0"]}"#)
        #expect(report.errors == [])
        #expect(report.warnings.map(\.path.description) == ["trustedProxies[0]", "trustedProxies[1]"])
    }

    @Test(arguments: ruleCases)
    func badValueIsReportedAtItsPath(_ rule: ConfigRuleCase) throws {
        let report = try ConfigFixture.report(overriding: rule.overrides)
        #expect(report.config == nil)
        let matching = report.errors.filter { $0.path.description == rule.path }
        #expect(!matching.isEmpty, "no error at \(rule.path); got: \(report.errors.map(\.description))")
        #expect(
            matching.contains { $0.message.contains(rule.expects) },
            "no message containing \(rule.expects); got: \(matching.map(\.message))")
    }

    @Test func redisStoreKeysAreRead() throws {
        let report = try Self.stateKeyReport(
            overriding: """
                {"stateKey": {"env": "STATE_KEY"},
                 "store": {"kind": "redis", "url": "redis://handler@[::1]:6380/3", "password": {"env": "FIXTURE_SECRET"},
                           "keyPrefix": "tenant-a:"}}
                """)
        #expect(report.problems == [])
        #expect(
            report.config?.store
                == .redis(
                    RedisStoreConfig(
                        address: RedisAddress(endpoint: .tcp(host: "::1", port: 6380), user: "handler", database: 3),
                        password: .environment("FIXTURE_SECRET"), keyPrefix: "tenant-a:", commandTimeoutSeconds: nil)))
    }

    @Test func redisCommandTimeoutIsReadAndIgnoredByOtherKinds() throws {
        let report = try Self.stateKeyReport(
            overriding: """
                {"stateKey": {"env": "STATE_KEY"},
                 "store": {"kind": "redis", "url": "unix:/run/redis.sock", "commandTimeoutSeconds": 1}}
                """)
        #expect(report.problems == [])
        #expect(
            report.config?.store
                == .redis(
                    RedisStoreConfig(
                        address: RedisAddress(endpoint: .unix(path: "/run/redis.sock")), commandTimeoutSeconds: 1)))
        let sqlite = try ConfigFixture.report(overriding: #"{"store": {"commandTimeoutSeconds": 5}}"#)
        #expect(sqlite.errors == [])
        #expect(sqlite.warnings.map(\.path.description) == ["store.commandTimeoutSeconds"])
        #expect(sqlite.config?.store == .default)
    }

    /// Redis over plain TCP to a host that is not loopback is a warning at `store.url` (as plain http to a remote
    /// `publicURL` is), naming the password when one is set and the ways out; never the password itself.
    @Test(arguments: [
        ("redis://handler@10.0.0.5:6379/0", true), ("redis://cache.internal", true), ("redis://[2001:db8::5]", false),
        ("redis://cache.internal", false),
    ])
    func plaintextRedisToARemoteHostIsAWarning(_ url: String, _ password: Bool) throws {
        let passwordJSON = password ? #", "password": {"env": "FIXTURE_SECRET"}"# : ""
        let report = try Self.stateKeyReport(
            overriding: """
                {"stateKey": {"env": "STATE_KEY"}, "store": {"kind": "redis", "url": "\(url)"\(passwordJSON)}}
                """)
        #expect(report.errors == [])
        #expect(report.config != nil)
        #expect(report.warnings.map(\.path.description) == ["store.url"], "\(report.warnings)")
        let message = report.warnings.first?.message ?? ""
        for expected in ["non-loopback", "forged", "unix:", "loopback address", "TLS tunnel"] {
            #expect(message.contains(expected), "\(message)")
        }
        #expect(message.contains("store.password") == password, "\(message)")
        #expect(!report.warnings.contains { $0.description.contains(ConfigFixture.secretValue) })
    }

    /// A Unix socket or a loopback address (where a TLS tunnel such as stunnel listens) is not warned about.
    @Test(arguments: [
        "unix:/run/redis/redis.sock", "redis://handler@127.0.0.1:6380/0", "redis://[::1]:6379", "redis://localhost",
    ])
    func redisOverASocketOrLoopbackIsNotWarnedAbout(_ url: String) throws {
        let report = try Self.stateKeyReport(
            overriding: """
                {"stateKey": {"env": "STATE_KEY"},
                 "store": {"kind": "redis", "url": "\(url)", "password": {"env": "FIXTURE_SECRET"}}}
                """)
        #expect(report.problems == [])
    }

    @Test(arguments: [
        ("redis://cache.internal", RedisAddress(endpoint: .tcp(host: "cache.internal", port: 6379))),
        ("redis://127.0.0.1:7000/", RedisAddress(endpoint: .tcp(host: "127.0.0.1", port: 7000))),
        ("unix:/run/redis/redis.sock", RedisAddress(endpoint: .unix(path: "/run/redis/redis.sock"))),
        ("unix:/run/redis/redis.sock?db=2", RedisAddress(endpoint: .unix(path: "/run/redis/redis.sock"), database: 2)),
    ])
    func redisURLForms(_ text: String, _ expected: RedisAddress) throws {
        #expect(try RedisAddress.parse(text).get() == expected)
    }

    @Test func redisStoreWithoutStateKeyIsRefusedAndOtherKindsIgnoreRedisKeys() throws {
        let refused = try ConfigFixture.report(overriding: #"{"store": {"kind": "redis", "url": "unix:/run/r.sock"}}"#)
        #expect(refused.config == nil)
        #expect(refused.errors.map(\.path.description) == ["stateKey"])
        let sqlite = try ConfigFixture.report(overriding: #"{"store": {"kind": "sqlite", "url": "redis://h"}}"#)
        #expect(sqlite.errors == [])
        #expect(sqlite.warnings.map(\.path.description) == ["store.url"])
    }

    @Test func baseFixtureIsValid() throws {
        let report = try ConfigFixture.report(overriding: "{}")
        #expect(report.problems == [])
    }

    @Test func loopbackHTTPIsAcceptedForProviderURLs() throws {
        for host in ["127.0.0.1:9000", "[::1]:9000", "localhost"] {
            let report = try ConfigFixture.report(
                overriding: """
                    {"providers": {"oauth2.local": {"protocol": "oauth2", "clientId": "c",
                      "clientSecret": {"env": "FIXTURE_SECRET"},
                      "endpoints": {"authorization": "http://\(host)/a", "token": "http://\(host)/t"}}}}
                    """)
            #expect(report.problems == [], "\(host)")
        }
    }

    @Test func everyProblemIsReportedTogether() throws {
        let report = try ConfigFixture.report(
            overriding: """
                {"publicURL": "nope", "sessionTTLSeconds": 0, "listen": ["x"], "extra": true,
                 "allowedRedirectURLs": ["https://ok.example/", "::"],
                 "providers": {"google.com": {"clientId": "c", "clientSecret": {"file": "/nonexistent/s"}},
                               "oidc.x": {"protocol": "magic"}}}
                """)
        let paths = Set(report.errors.map(\.path.description))
        let expected: Set<String> = [
            "publicURL", "sessionTTLSeconds", "listen[0]", "extra", "allowedRedirectURLs[1]",
            #"providers["google.com"].clientSecret.file"#, #"providers["oidc.x"].protocol"#,
        ]
        #expect(expected.isSubset(of: paths), "missing: \(expected.subtracting(paths))")
    }

    @Test func plainStringSecretIsAWarningNotAnError() throws {
        let report = try ConfigFixture.report(
            overriding: #"{"providers": {"github.com": {"clientId": "c", "clientSecret": "inline-secret-text"}}}"#)
        #expect(report.errors == [])
        #expect(report.config != nil)
        #expect(report.warnings.map(\.path.description) == [#"providers["github.com"].clientSecret"#])
        #expect(report.warnings.allSatisfy { !$0.description.contains("inline-secret-text") })
        #expect(report.warnings.first?.description.hasPrefix("warning: ") == true)
    }

    @Test func noMessageContainsASecretValue() throws {
        let report = try ConfigFixture.report(
            overriding: """
                {"providers": {"github.com": {"clientId": "c", "clientSecret": "\(ConfigFixture.secretValue)",
                                              "scopes": [1]},
                               "twitter.com": {"consumerKey": "k", "consumerSecret": {"env": "FIXTURE_SECRET"},
                                               "responseMode": "query"}}}
                """)
        #expect(!report.problems.isEmpty)
        for problem in report.problems {
            #expect(!problem.description.contains(ConfigFixture.secretValue))
        }
        #expect(!String(describing: report.config as Any).contains(ConfigFixture.secretValue))
    }

    @Test func malformedJSONIsOneProblemWithLineAndColumn() {
        let report = ConfigFixture.report(Data("{\n  \"listen\": [\"127.0.0.1:80\",]\n}".utf8))
        #expect(report.problems.count == 1)
        #expect(report.problems.first?.message.contains("line 2, column 29") == true)
        #expect(report.config == nil)
    }

    @Test func secretFileRelativeToTheConfigFileResolves() throws {
        let directory = try ConfigTemporaryDirectory()
        defer { directory.remove() }
        try directory.write("github-secret", "from-a-file\n")
        let configPath = try directory.write(
            "config.json",
            #"{"providers": {"github.com": {"clientId": "c", "clientSecret": {"file": "github-secret"}}}}"#)
        let report = try ConfigLoader(environment: SecretEnvironment(variables: [:])).load(fileAt: configPath)
        #expect(report.errors == [])
        let secret = try #require(report.config?.providers["github.com"]?.clientSecret)
        #expect(try secret.resolve(in: SecretEnvironment(variables: [:])).reveal() == "from-a-file")
    }

    @Test func unreadableConfigFileThrows() throws {
        #expect(throws: ConfigFileError(path: "/nonexistent/auth-handler.json", reason: .missing)) {
            try ConfigLoader().load(fileAt: "/nonexistent/auth-handler.json")
        }
        let directory = try ConfigTemporaryDirectory()
        defer { directory.remove() }
        #expect(throws: ConfigFileError(path: directory.path, reason: .isDirectory)) {
            try ConfigLoader().load(fileAt: directory.path)
        }
    }
}

/// A Redis URL's password never reaches an error message, whichever check refuses the URL first.
struct RedisAddressSecretTests {
    @Test(arguments: [
        "redis://:s3cret-pw@", "redis://user:s3cret-pw@host:6379", "redis://:s3cret-pw@ho st", "redis://u:s3cret-pw@",
    ])
    func aPasswordIsNeverQuoted(_ text: String) {
        guard case .failure(let error) = RedisAddress.parse(text) else {
            Issue.record("\(text) was accepted")
            return
        }
        #expect(!error.description.contains("s3cret-pw"), "\(error)")
    }
}
