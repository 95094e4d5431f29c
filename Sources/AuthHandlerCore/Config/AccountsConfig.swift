import AuthHandlerCrypto
import AuthHandlerHTTP
import Foundation

/// Backend `accounts` (CONFIG.md `backend`, docs/ACCOUNTS.md): the daemon keeps the users itself.
package struct AccountsConfig: Sendable, Hashable {
    /// The database file's name in the state directory when `database.path` is not given.
    package static let defaultDatabaseFile = "accounts.sqlite"
    /// The signing key's file name beside the database when `signingKey` is not given.
    package static let defaultSigningKeyFile = "accounts-signing-key.pem"

    /// `database.path`, absolute after loading; nil means `$STATE_DIRECTORY/accounts.sqlite` (or
    /// `/var/lib/auth-handler/accounts.sqlite`).
    package var databasePath: String?
    /// `database` of kind `postgres`: the database every instance shares; nil for kind `sqlite`.
    package var postgres: AccountsPostgresConfig?
    /// `signingKey`: the P-256 private key (PEM) that signs ID tokens; nil means a file beside the database, made when
    /// missing, or with PostgreSQL the key the database keeps (docs/ACCOUNTS.md "Keys the database keeps").
    package var signingKey: SecretReference?
    /// `nextSigningKey`: published in the JWKS before it signs (docs/ACCOUNTS.md "ID tokens and keys").
    package var nextSigningKey: SecretReference?
    /// `previousSigningKeys`: published, never signing, so tokens they signed still verify.
    package var previousSigningKeys: [SecretReference] = []
    /// `idTokenTTLSeconds`: 300 to 86400, default 3600 (Firebase's hour).
    package var idTokenTTLSeconds = 3600
    /// `refreshToken`.
    package var refreshToken = RefreshTokenSettings()
    /// `audience`: the ID tokens' `aud`; nil means `publicURL`.
    package var audience: String?
    /// `password`.
    package var password = PasswordSettings()
    /// `email`: where mail goes; nil means no mail (no reset, verification or e-mail change).
    package var email: EmailSettings?
    /// `claims.identities`: whether ID tokens list the provider user ids under `firebase.identities`.
    package var includeIdentities = true
    /// `introspectionSecret`: the operator secret `POST /__/auth/introspect` requires; nil turns the endpoint off.
    package var introspectionSecret: SecretReference?
    /// `importedHashes.firebase`: what checks the passwords of users imported from Firebase; nil: no such check.
    package var importedFirebase: FirebaseHashConfig?

    package init() {}

    /// The keys this kind reads, each a section it checks itself.
    static let keys = KeyValuePairs<String, ConfigKeyType>(
        dictionaryLiteral: ("database", .section), ("signingKey", .section), ("nextSigningKey", .section),
        ("previousSigningKeys", .section), ("idTokenTTLSeconds", .section), ("refreshToken", .section),
        ("audience", .section), ("password", .section), ("email", .section), ("claims", .section),
        ("introspectionSecret", .section), ("importedHashes", .section))

    /// The database file: `database.path`, or `accounts.sqlite` in the state directory (`$STATE_DIRECTORY`, else
    /// `/var/lib/auth-handler`).
    package func databaseFile(environment: [String: String]) -> String {
        if let databasePath { return databasePath }
        let directory = environment["STATE_DIRECTORY"]?.split(separator: ":").first.map(String.init)
        return (directory ?? SQLiteStoreConfig.defaultStateDirectory) + "/" + Self.defaultDatabaseFile
    }
}

/// `backend.database` of kind `postgres` (CONFIG.md, docs/ACCOUNTS.md "Storage").
package struct AccountsPostgresConfig: Sendable, Hashable {
    /// The bounds `poolSize` and `statementTimeoutMs` are checked against.
    package static let (poolSizes, statementTimeouts) = (1...64, 100...60000)

    /// `url`: a libpq connection URI without a password, e.g. `postgresql://auth@db:5432/auth?sslmode=verify-full`.
    package var url: String
    /// `password`: the database user's password, a secret reference; nil for none (a client certificate, peer).
    package var password: SecretReference?
    /// `poolSize`: connections per instance (default 8).
    package var poolSize = 8
    /// `statementTimeoutMs`: PostgreSQL's `statement_timeout`, and the longest an accounts operation waits for the
    /// database before it answers `503 unavailable` (default 2000).
    package var statementTimeoutMs = 2000

    package init(url: String) {
        self.url = url
    }
}

/// `backend.refreshToken` (docs/ACCOUNTS.md "Refresh tokens and sessions").
package struct RefreshTokenSettings: Sendable, Hashable {
    /// A session unused this long ends (default 30 days).
    package var idleDays = 30
    /// A session ends this long after its sign-in, however used (default 90 days).
    package var absoluteDays = 90
    /// How long after its first use a token whose successor was never used still gets that successor again (a lost
    /// answer on a mobile network; default 300 s, at most 3600).
    package var lostAnswerSeconds = 300

    package init() {}
}

/// `backend.password` (docs/ACCOUNTS.md "Passwords").
package struct PasswordSettings: Sendable, Hashable {
    /// OWASP Password Storage Cheat Sheet's Argon2id rows, each as strong as the others: the configured parameters
    /// must be at least one of them (more memory or more iterations than a row is stronger).
    package static let owaspMinimums: [(memoryKiB: UInt32, iterations: UInt32)] = [
        (47104, 1), (19456, 2), (12288, 3), (9216, 4), (7168, 5),
    ]
    /// The shortest `minLength` accepted, and the one below which `check-config` warns (NIST SP 800-63B-4 §3.1.1.2:
    /// 8 at least, 15 when the password is the only factor).
    package static let (refusedBelow, warnedBelow) = (8, 15)
    /// The longest password accepted, in code points after NFKC.
    package static let maximumLength = 256

    package var enabled = true
    package var minLength = 15
    package var argon2id = Argon2id.Parameters(memoryKiB: 19456, iterations: 2, parallelism: 1)
    /// `blockList.file`: one refused password a line.
    package var blockListFile: String?
    /// `rateLimit`: the hashing budget per client.
    package var rateLimit = StartRateLimit(perMinute: 10, burst: 5)

    package init() {}

    /// Whether `parameters` are at least as strong as one of OWASP's rows.
    package static func meetsOWASP(_ parameters: Argon2id.Parameters) -> Bool {
        parameters.parallelism >= 1
            && owaspMinimums.contains { parameters.memoryKiB >= $0.memoryKiB && parameters.iterations >= $0.iterations }
    }
}

/// `backend.email` (docs/ACCOUNTS.md "E-mail addresses and mail").
package struct EmailSettings: Sendable, Hashable {
    /// `from`: the `From` header as written, e.g. `Example App <no-reply@example.com>`.
    package var from: String
    package var delivery: MailDelivery
}

/// How mail leaves the daemon.
package enum MailDelivery: Sendable, Hashable {
    /// `smtp`: through libcurl to `url` (`smtps://`, or `smtp://` with STARTTLS required off loopback).
    case smtp(url: URL, username: String?, password: SecretReference?)
    /// `outbox`: each message an `.eml` file in `directory` (development).
    case outbox(directory: String)
}
