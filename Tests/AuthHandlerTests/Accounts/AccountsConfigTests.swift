import Foundation
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerCrypto
@testable import AuthHandlerHTTP

/// Backend `accounts`'s settings (CONFIG.md `backend`): defaults, and each refusal with its path.
struct AccountsConfigTests {
    /// The settings and the problems of `json`, the `backend` section's members.
    static func validate(_ json: String, directory: String = "/etc/auth-handler") throws -> (
        AccountsConfig, [ConfigProblem]
    ) {
        guard case .object(let fields) = try JSONSyntax.parse(Array(json.utf8)).get() else {
            throw ConfigTestFailure("not an object: \(json)")
        }
        var validator = ConfigValidator(
            environment: ConfigFixture.environment, baseDirectory: directory, resolvesSecrets: true)
        let config = validator.accounts(fields, at: ConfigPath.root.key("backend"))
        return (config, validator.problems)
    }

    static func errors(_ problems: [ConfigProblem]) -> [String] {
        problems.filter { $0.severity == .error }.map(\.description)
    }

    struct ConfigTestFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    @Test("the defaults: OWASP's first-choice Argon2id, 15 characters, an hour, 30/90 days, 300 s")
    func defaults() throws {
        let (config, problems) = try Self.validate(#"{"kind": "accounts"}"#)
        #expect(problems.isEmpty)
        #expect(config.password.argon2id == Argon2id.Parameters(memoryKiB: 19456, iterations: 2, parallelism: 1))
        #expect(config.password.minLength == 15)
        #expect(config.password.rateLimit == StartRateLimit(perMinute: 10, burst: 5))
        #expect(config.idTokenTTLSeconds == 3600)
        #expect(config.refreshToken == RefreshTokenSettings())
        #expect(config.refreshToken.lostAnswerSeconds == 300)
        #expect(config.databasePath == nil && config.signingKey == nil && config.email == nil)
        #expect(config.includeIdentities)
    }

    @Test(
        "Argon2id weaker than every OWASP row is refused; each row and anything stronger is accepted",
        arguments: [
            (47104, 1, true), (19456, 2, true), (12288, 3, true), (9216, 4, true), (7168, 5, true),
            (65536, 3, true), (47103, 1, false), (19455, 2, false), (19456, 1, false), (7167, 5, false),
            (4096, 64, false), (8, 4, false),
        ])
    func argon2idFloor(memoryKiB: Int, iterations: Int, accepted: Bool) throws {
        let json = #"{"password": {"argon2id": {"memoryKiB": \#(memoryKiB), "iterations": \#(iterations)}}}"#
        let (_, problems) = try Self.validate(json)
        let errors = Self.errors(problems)
        #expect(errors.isEmpty == accepted, "\(errors)")
        if !accepted { #expect(errors.first?.contains("backend.password.argon2id") == true) }
    }

    @Test("minLength below 8 is refused, below 15 warned about, 15 and above accepted")
    func minimumLength() throws {
        let (_, seven) = try Self.validate(#"{"password": {"minLength": 7}}"#)
        #expect(Self.errors(seven).first?.contains("backend.password.minLength") == true)
        let (eight, warned) = try Self.validate(#"{"password": {"minLength": 8}}"#)
        #expect(Self.errors(warned).isEmpty)
        #expect(warned.contains { $0.severity == .warning && $0.description.contains("15") })
        #expect(eight.password.minLength == 8)
        let (_, fifteen) = try Self.validate(#"{"password": {"minLength": 15}}"#)
        #expect(fifteen.isEmpty)
    }

    @Test(
        "limits out of range are refused with their path",
        arguments: [
            (#"{"idTokenTTLSeconds": 299}"#, "backend.idTokenTTLSeconds"),
            (#"{"idTokenTTLSeconds": 86401}"#, "backend.idTokenTTLSeconds"),
            (#"{"refreshToken": {"lostAnswerSeconds": 3601}}"#, "backend.refreshToken.lostAnswerSeconds"),
            (#"{"refreshToken": {"idleDays": 100, "absoluteDays": 90}}"#, "backend.refreshToken.idleDays"),
            (#"{"refreshToken": {"idle": 3}}"#, "backend.refreshToken.idle"),
            (#"{"database": {"kind": "mysql"}}"#, "backend.database.kind"),
            (#"{"database": {"kind": "postgres"}}"#, "backend.database.url"),
            (#"{"database": {"kind": "postgres", "url": "mysql://db/auth"}}"#, "backend.database.url"),
            (#"{"database": {"kind": "postgres", "url": "postgresql:///a", "path": "/x"}}"#, "backend.database.path"),
            (#"{"database": {"kind": "sqlite", "url": "postgresql:///a"}}"#, "backend.database.url"),
            (
                #"{"database": {"kind": "postgres", "url": "postgresql:///a", "poolSize": 0}}"#,
                "backend.database.poolSize"
            ),
            (
                #"{"database": {"kind": "postgres", "url": "postgresql:///a", "statementTimeoutMs": 99}}"#,
                "backend.database.statementTimeoutMs"
            ),
            (#"{"email": {"from": "a@example.com"}}"#, "backend.email"),
            (
                #"{"email": {"from": "App\r\nBcc: x@evil.example <a@example.com>", "outbox": "/tmp"}}"#,
                "backend.email.from"
            ),
            (
                #"{"email": {"from": "a@example.com", "smtp": {"url": "http://mail.example.com"}}}"#,
                "backend.email.smtp.url"
            ),
            (
                #"{"email": {"from": "a@example.com", "smtp": {"url": "smtp://u:p@mail.example.com"}}}"#,
                "backend.email.smtp.url"
            ),
            (
                #"{"email": {"from": "a@example.com", "smtp": {"url": "smtps://mail.example.com", "username": "u"}}}"#,
                "backend.email.smtp"
            ),
            (#"{"password": {"blockList": {"file": "/nonexistent/list.txt"}}}"#, "backend.password.blockList.file"),
            (#"{"claims": {"identities": "no"}}"#, "backend.claims.identities"),
        ])
    func refusals(json: String, path: String) throws {
        let (_, problems) = try Self.validate(json)
        let errors = Self.errors(problems)
        #expect(errors.contains { $0.hasPrefix(path) }, "\(errors)")
    }

    @Test("database kind postgres: every member read, the password a secret reference")
    func postgresDatabase() throws {
        let (config, problems) = try Self.validate(
            #"""
            {"database": {"kind": "postgres", "url": "postgresql://auth@db.example:5432/auth?sslmode=verify-full",
             "password": {"env": "FIXTURE_SECRET"}, "poolSize": 3, "statementTimeoutMs": 1500},
             "signingKey": {"env": "FIXTURE_SECRET"}}
            """#)
        #expect(Self.errors(problems).isEmpty, "\(problems)")
        let postgres = try #require(config.postgres)
        #expect(postgres.url == "postgresql://auth@db.example:5432/auth?sslmode=verify-full")
        #expect(postgres.password == .environment("FIXTURE_SECRET"))
        #expect(postgres.poolSize == 3)
        #expect(postgres.statementTimeoutMs == 1500)
        #expect(config.databasePath == nil)
    }

    @Test("a password in the PostgreSQL URL is refused without being quoted; a remote host without verify-full warned")
    func postgresURLPassword() throws {
        let (_, problems) = try Self.validate(
            #"{"database": {"kind": "postgres", "url": "postgresql://auth:hunter2secret@db.example/auth"}}"#)
        let refusal = try #require(Self.errors(problems).first { $0.hasPrefix("backend.database.url") })
        #expect(refusal.contains("secret reference"))
        #expect(!problems.map(\.description).joined().contains("hunter2secret"))
        let (_, plain) = try Self.validate(
            #"{"database": {"kind": "postgres", "url": "postgresql://auth@db.example/auth"}, "signingKey": "k"}"#)
        #expect(plain.contains { $0.severity == .warning && $0.description.contains("sslmode=verify-full") })
    }

    @Test("a signing key file that does not exist yet is accepted (serve makes it); a missing env is not")
    func signingKeys() throws {
        let (config, problems) = try Self.validate(
            #"{"signingKey": {"file": "keys/accounts.pem"}, "previousSigningKeys": [{"env": "FIXTURE_SECRET"}]}"#)
        #expect(problems.isEmpty)
        #expect(config.signingKey == .file("/etc/auth-handler/keys/accounts.pem"))
        #expect(config.previousSigningKeys == [.environment("FIXTURE_SECRET")])
        let (_, missing) = try Self.validate(#"{"nextSigningKey": {"env": "NOT_SET_ANYWHERE"}}"#)
        #expect(Self.errors(missing).contains { $0.hasPrefix("backend.nextSigningKey") })
    }

    @Test("SMTP and outbox settings are read; the password never appears in a message")
    func email() throws {
        let (config, problems) = try Self.validate(
            #"{"email": {"from": "Example App <no-reply@example.com>", "smtp": {"url": "smtp://127.0.0.1:2525", "#
                + #""username": "mailer", "password": {"env": "FIXTURE_SECRET"}}}}"#)
        #expect(problems.isEmpty)
        #expect(config.email?.from == "Example App <no-reply@example.com>")
        guard case .smtp(let url, let username, let password)? = config.email?.delivery else {
            Issue.record("expected smtp, got \(String(describing: config.email))")
            return
        }
        #expect(url.absoluteString == "smtp://127.0.0.1:2525" && username == "mailer")
        #expect(password == .environment("FIXTURE_SECRET"))
        let (outbox, _) = try Self.validate(#"{"email": {"from": "a@example.com", "outbox": "mail"}}"#)
        #expect(outbox.email?.delivery == .outbox(directory: "/etc/auth-handler/mail"))
    }

    @Test("PostgreSQL without stateKey is warned about, not refused: the database keeps the keys then")
    func postgresWithoutStateKey() throws {
        var accounts = AccountsConfig()
        accounts.postgres = AccountsPostgresConfig(url: "postgresql://auth@127.0.0.1/auth")
        var config = AuthHandlerConfig()
        config.publicURL = URL(string: "https://auth.example.com/")
        config.backend = .accounts(accounts)
        var validator = ConfigValidator(
            environment: ConfigFixture.environment, baseDirectory: "/", resolvesSecrets: false)
        validator.checkAccounts(in: config)
        #expect(Self.errors(validator.problems).isEmpty, "\(validator.problems)")
        #expect(
            validator.problems.contains {
                $0.severity == .warning && $0.description.hasPrefix("warning: stateKey")
                    && $0.description.contains("a copy of the database holds both")
            })
        config.stateKey = .environment("FIXTURE_SECRET")
        var withKey = ConfigValidator(
            environment: ConfigFixture.environment, baseDirectory: "/", resolvesSecrets: false)
        withKey.checkAccounts(in: config)
        #expect(withKey.problems.isEmpty, "\(withKey.problems)")
    }

    @Test("accounts refuses requireResultChallenge false and an OIDC provider whose issuer is this daemon")
    func crossChecks() throws {
        var config = AuthHandlerConfig()
        config.publicURL = URL(string: "https://auth.example.com/")
        config.requireResultChallenge = false
        config.providers = [
            "oidc.self": ProviderConfig(protocolKind: .oidc, issuer: URL(string: "https://auth.example.com/__/auth")),
            "oidc.other": ProviderConfig(protocolKind: .oidc, issuer: URL(string: "https://idp.example.com")),
        ]
        var validator = ConfigValidator(
            environment: ConfigFixture.environment, baseDirectory: "/", resolvesSecrets: false)
        validator.checkAccounts(in: config)
        let errors = Self.errors(validator.problems)
        #expect(errors.count == 2, "\(errors)")
        #expect(errors.contains { $0.hasPrefix("requireResultChallenge") })
        #expect(errors.contains { $0.hasPrefix(#"providers["oidc.self"].issuer"#) })
    }
}
