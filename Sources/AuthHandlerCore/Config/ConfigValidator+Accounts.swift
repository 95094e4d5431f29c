import AuthHandlerCrypto
import AuthHandlerHTTP
import Foundation

/// Backend `accounts`'s keys (CONFIG.md `backend`, kind `accounts`), each nested section checked with its path.
extension ConfigValidator {
    static let accountsKeys = [
        "database", "signingKey", "nextSigningKey", "previousSigningKeys", "idTokenTTLSeconds", "refreshToken",
        "audience", "password", "email", "claims", "introspectionSecret", "importedHashes",
    ]
    static let accountsDatabaseKeys = ["kind", "path", "url", "password", "poolSize", "statementTimeoutMs"]
    static let refreshTokenKeys = ["idleDays", "absoluteDays", "lostAnswerSeconds"]
    static let passwordKeys = ["enabled", "minLength", "argon2id", "blockList", "rateLimit"]
    static let argon2idKeys = ["memoryKiB", "iterations", "parallelism"]
    static let emailKeys = ["from", "smtp", "outbox"]
    static let smtpKeys = ["url", "username", "password"]
    static let claimsKeys = ["identities"]

    /// The `accounts` settings among `fields` (the `backend` section's members).
    mutating func accounts(_ fields: [String: JSONValue], at path: ConfigPath) -> AccountsConfig {
        var config = AccountsConfig()
        if let value = fields["database"] {
            (config.databasePath, config.postgres) = accountsDatabase(value, at: path.key("database"))
        }
        if let value = fields["signingKey"] { config.signingKey = signingKey(value, at: path.key("signingKey")) }
        if let value = fields["nextSigningKey"] {
            config.nextSigningKey = signingKey(value, at: path.key("nextSigningKey"))
        }
        if let value = fields["previousSigningKeys"] {
            config.previousSigningKeys = previousSigningKeys(value, at: path.key("previousSigningKeys"))
        }
        if let value = fields["idTokenTTLSeconds"],
            let seconds = integer(value, in: 300...86400, at: path.key("idTokenTTLSeconds"), counting: "seconds")
        {
            config.idTokenTTLSeconds = seconds
        }
        if let value = fields["refreshToken"] {
            config.refreshToken = refreshToken(value, at: path.key("refreshToken"))
        }
        if let value = fields["audience"] { config.audience = string(value, at: path.key("audience")) }
        if let value = fields["password"] { config.password = password(value, at: path.key("password")) }
        if let value = fields["email"] { config.email = email(value, at: path.key("email")) }
        if let value = fields["claims"],
            let claims = object(value, at: path.key("claims"), allowedKeys: Self.claimsKeys),
            let identities = claims["identities"]
        {
            config.includeIdentities = boolean(identities, at: path.key("claims").key("identities")) ?? true
        }
        if let value = fields["introspectionSecret"] {
            config.introspectionSecret = secret(value, at: path.key("introspectionSecret"))
        }
        if let value = fields["importedHashes"] {
            config.importedFirebase = importedHashes(value, at: path.key("importedHashes"))
        }
        return config
    }

    /// What `accounts` needs of the rest of the config: the result challenge (without the verifier a planted result
    /// code signs the victim in as the attacker: login CSRF, and link CSRF with `linkViaRedirect`), and no OIDC
    /// provider whose issuer is this daemon's (its own ID tokens would sign people in to themselves).
    mutating func checkAccounts(in config: AuthHandlerConfig) {
        if !config.requireResultChallenge {
            fail(
                ConfigPath.root.key("requireResultChallenge"),
                "is false, which backend kind \"accounts\" refuses: without the verifier a result code planted in "
                    + "someone's browser signs them in to the attacker's account (login CSRF); remove the key")
        }
        guard let publicURL = config.publicURL else {
            fail(
                ConfigPath.root.key("publicURL"),
                "required with backend kind \"accounts\": it is the ID tokens' issuer and where mail links point")
            return
        }
        if case .accounts(let accounts) = config.backend, accounts.postgres != nil, config.stateKey == nil {
            let kept =
                accounts.signingKey == nil
                ? "the state key (and the signing key, sealed under it), so a copy of the database holds both"
                : "the state key, so a copy of the database holds it"
            warn(
                ConfigPath.root.key("stateKey"),
                "not set with database kind \"postgres\": the database keeps \(kept); set stateKey, the same on every "
                    + "instance (docs/ACCOUNTS.md \"Keys the database keeps\")")
        }
        let ownIssuer = publicURL.absoluteString.trimmingSuffix("/") + "/__/auth"
        for (id, provider) in config.providers.sorted(by: { $0.key < $1.key }) {
            guard let issuer = provider.issuer?.absoluteString.trimmingSuffix("/"), issuer == ownIssuer else {
                continue
            }
            fail(
                ConfigPath.root.key("providers").entry(id).key("issuer"),
                "is this daemon's own issuer (\(ownIssuer)), which backend kind \"accounts\" refuses: its own ID "
                    + "tokens would sign people in; remove the provider")
        }
    }

    /// `database`: `{"kind": "sqlite", "path": ...}` or `{"kind": "postgres", "url": ..., "password": ..., "poolSize":
    /// ..., "statementTimeoutMs": ...}`; answers the SQLite path, absolute, when given, or the PostgreSQL settings.
    private mutating func accountsDatabase(_ value: JSONValue, at path: ConfigPath) -> (
        String?, AccountsPostgresConfig?
    ) {
        guard let fields = object(value, at: path, allowedKeys: Self.accountsDatabaseKeys) else { return (nil, nil) }
        var kind = "sqlite"
        if let value = fields["kind"], let text = string(value, at: path.key("kind")) { kind = text }
        let postgresKeys = ["url", "password", "poolSize", "statementTimeoutMs"]
        switch kind {
        case "sqlite":
            for key in postgresKeys where fields[key] != nil {
                fail(path.key(key), "belongs to database kind \"postgres\"; remove it, or set kind to \"postgres\"")
            }
            guard let value = fields["path"], let text = string(value, at: path.key("path")) else { return (nil, nil) }
            return (absolutePath(text), nil)
        case "postgres":
            if fields["path"] != nil {
                fail(path.key("path"), "belongs to database kind \"sqlite\"; a PostgreSQL database is named by url")
            }
            return (nil, postgresDatabase(fields, at: path))
        default:
            fail(
                path.key("kind"),
                "\(Self.quote(kind)) is not a database kind this release has; expected \"sqlite\" or \"postgres\"")
            return (nil, nil)
        }
    }

    /// The members of a `postgres` database.
    private mutating func postgresDatabase(_ fields: [String: JSONValue], at path: ConfigPath)
        -> AccountsPostgresConfig?
    {
        guard let value = fields["url"] else {
            fail(
                path.key("url"),
                "required with database kind \"postgres\"; expected a libpq URI such as "
                    + "\"postgresql://auth@db.example:5432/auth?sslmode=verify-full\"")
            return nil
        }
        guard let url = postgresURL(value, at: path.key("url")) else { return nil }
        var config = AccountsPostgresConfig(url: url)
        if let value = fields["password"] { config.password = secret(value, at: path.key("password")) }
        if let size = fields["poolSize"].flatMap({
            integer($0, in: AccountsPostgresConfig.poolSizes, at: path.key("poolSize"), counting: "connections")
        }) {
            config.poolSize = size
        }
        if let timeout = fields["statementTimeoutMs"].flatMap({
            integer(
                $0, in: AccountsPostgresConfig.statementTimeouts, at: path.key("statementTimeoutMs"),
                counting: "milliseconds")
        }) {
            config.statementTimeoutMs = timeout
        }
        return config
    }

    /// A libpq connection URI (https://www.postgresql.org/docs/15/libpq-connect.html#LIBPQ-CONNSTRING) without a
    /// password: the URL appears in messages, the password belongs in `password` as a secret reference.
    private mutating func postgresURL(_ value: JSONValue, at path: ConfigPath) -> String? {
        guard let text = string(value, at: path) else { return nil }
        let expected = "expected a URI such as \"postgresql://auth@db.example:5432/auth?sslmode=verify-full\""
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "postgresql" || scheme == "postgres"
        else {
            return refuse(path, "is not a postgresql:// URI; \(expected)")
        }
        let query = components.queryItems ?? []
        if components.password != nil || query.contains(where: { $0.name == "password" }) {
            // Never quoted back: the value holds a password.
            return refuse(
                path,
                "holds a password, which would appear wherever the URL does; remove it and set "
                    + "backend.database.password to a secret reference")
        }
        let host = components.host ?? query.first { $0.name == "host" }?.value ?? ""
        let local = host.isEmpty || host.hasPrefix("/") || host == "localhost" || host == "127.0.0.1" || host == "::1"
        let sslmode = query.first { $0.name == "sslmode" }?.value
        if !local, sslmode != "verify-full" {
            warn(
                path,
                "connects to \(Self.quote(host)) without sslmode=verify-full: the password and every account would "
                    + "cross the network unauthenticated; add ?sslmode=verify-full&sslrootcert=FILE")
        }
        return text
    }

    /// A signing key: a secret reference, whose file need not exist yet (`serve` makes it, 0600).
    private mutating func signingKey(_ value: JSONValue, at path: ConfigPath) -> SecretReference? {
        if case .object(let fields) = value, fields.count == 1, case .string(let name)? = fields["file"], !name.isEmpty
        {
            let file = absolutePath(name)
            if FileManager.default.fileExists(atPath: file) { return secret(value, at: path) }
            return .file(file)
        }
        return secret(value, at: path)
    }

    private mutating func previousSigningKeys(_ value: JSONValue, at path: ConfigPath) -> [SecretReference] {
        guard case .array(let items) = value else {
            fail(path, "expected an array of secret references, got \(value.typeName)")
            return []
        }
        return items.enumerated().compactMap { index, item in secret(item, at: path.index(index)) }
    }

    private mutating func refreshToken(_ value: JSONValue, at path: ConfigPath) -> RefreshTokenSettings {
        var settings = RefreshTokenSettings()
        guard let fields = object(value, at: path, allowedKeys: Self.refreshTokenKeys) else { return settings }
        if let days = fields["idleDays"].flatMap({
            integer($0, in: 1...3650, at: path.key("idleDays"), counting: "days")
        }) {
            settings.idleDays = days
        }
        if let days = fields["absoluteDays"].flatMap({
            integer($0, in: 1...3650, at: path.key("absoluteDays"), counting: "days")
        }) {
            settings.absoluteDays = days
        }
        if let seconds = fields["lostAnswerSeconds"].flatMap({
            integer($0, in: 0...3600, at: path.key("lostAnswerSeconds"), counting: "seconds")
        }) {
            settings.lostAnswerSeconds = seconds
        }
        if settings.idleDays > settings.absoluteDays {
            fail(
                path.key("idleDays"),
                "is \(settings.idleDays), longer than absoluteDays (\(settings.absoluteDays)); expected at most that")
        }
        return settings
    }

    /// A whole number in `range`, or nil after reporting why not.
    mutating func integer(
        _ value: JSONValue, in range: ClosedRange<Int>, at path: ConfigPath, counting unit: String
    ) -> Int? {
        let expected = "expected a whole number of \(unit) from \(range.lowerBound) to \(range.upperBound)"
        guard let number = Self.wholeNumber(value) else {
            return refuse(path, "\(expected), got \(value.typeName)")
        }
        guard number >= range.lowerBound, number <= range.upperBound else {
            return refuse(path, "is \(number); \(expected)")
        }
        return Int(number)
    }
}

extension String {
    /// The string without one trailing `suffix`.
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
