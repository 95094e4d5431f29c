import AuthHandlerAccounts
import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerStore
import Foundation

/// What building the accounts backend needs beside its own settings.
package struct AccountsSetup: Sendable {
    /// `publicURL`: the ID tokens' issuer (with `/__/auth`) and default audience, and where mail links point.
    package var publicURL: URL
    /// The current state key, from which the keys of the device cookie and of pending credentials are derived
    /// (HKDF-SHA256, RFC 5869, each under its own label).
    package var stateKey: [UInt8]
    /// `previousStateKeys`: they still open what a PostgreSQL database keeps sealed (``DatabaseKeys``).
    package var previousStateKeys: [[UInt8]]
    /// The process's environment (`$STATE_DIRECTORY`) and secrets.
    package var environment: SecretEnvironment
    /// The app's name in mail (`branding.name`, else the public host).
    package var appName: String
    /// The counters `/metrics` shows (kept across reloads).
    package var metrics: AccountsMetrics
    /// Where the mail queue's reports go (one log line each; they never hold an address or a body).
    package var report: @Sendable (MailReport) -> Void
    /// Where a stored imported hash refused at a sign-in is reported (one log line naming why, never the hash).
    package var refusedLegacyHash: (@Sendable (LegacyPasswordHash.Refusal) -> Void)?

    package init(
        publicURL: URL, stateKey: [UInt8], previousStateKeys: [[UInt8]] = [], environment: SecretEnvironment,
        appName: String,
        metrics: AccountsMetrics = AccountsMetrics(), report: @escaping @Sendable (MailReport) -> Void,
        refusedLegacyHash: (@Sendable (LegacyPasswordHash.Refusal) -> Void)? = nil
    ) {
        self.refusedLegacyHash = refusedLegacyHash
        self.metrics = metrics
        self.publicURL = publicURL
        self.stateKey = stateKey
        self.previousStateKeys = previousStateKeys
        self.environment = environment
        self.appName = appName
        self.report = report
    }

    /// `publicURL` without a trailing `/`.
    var base: String {
        let text = publicURL.absoluteString
        return text.hasSuffix("/") ? String(text.dropLast()) : text
    }
}

extension AccountsConfig {
    /// Opens the database, reads or makes the signing key, and builds the engine and its mail.
    package func makeBackend(_ setup: AccountsSetup) throws(BackendSetupError) -> AccountsBackend {
        let file = databaseFile(environment: setup.environment.variables)
        let store = try openStore(environment: setup.environment)
        var settings = AccountsSettings(
            idToken: IDTokenSettings(
                publicURL: setup.base, audience: audience, lifetimeSeconds: idTokenTTLSeconds,
                includesIdentities: includeIdentities))
        settings.refreshIdle = TimeInterval(refreshToken.idleDays) * 86400
        settings.refreshAbsolute = TimeInterval(refreshToken.absoluteDays) * 86400
        settings.lostAnswer = TimeInterval(refreshToken.lostAnswerSeconds)
        settings.passwordsEnabled = password.enabled
        let deviceCookies = DeviceCookie(key: try Self.derive(setup.stateKey, "auth-handler device-cookie"))
        let pendingCredentialKey = try Self.derive(setup.stateKey, "auth-handler accounts pending-credential")
        let hasher = try passwordHasher(
            firebase: try importedFirebase?.parameters(in: setup.environment),
            refusedLegacyHash: setup.refusedLegacyHash)
        let policy = try passwordPolicy()
        let introspection = try introspectionSecret.map { reference throws(BackendSetupError) in
            try BackendSetupError.resolve(reference, key: "backend.introspectionSecret", in: setup.environment)
        }
        let mail = try mail(store: store, setup: setup)
        // The last check, as it may write to a PostgreSQL database: a refusal before it leaves the database as it was.
        let keys = try signingKeys(besides: file, setup: setup)
        let engine = AccountsEngine(
            store: store, settings: settings, keys: keys, hasher: hasher, policy: policy,
            throttle: throttle(store: store, deviceCookies: deviceCookies), deviceCookies: deviceCookies,
            pendingCredentialKey: pendingCredentialKey)
        setup.metrics.attach { [hasher] in hasher.snapshot() }
        return AccountsBackend(
            engine: engine, mail: mail, metrics: setup.metrics,
            introspectionSecret: introspection)
    }

    /// Opens the database of `database.kind`: the SQLite file (made when missing), or the PostgreSQL database (its
    /// migrations applied).
    package func openStore(environment: SecretEnvironment) throws(BackendSetupError) -> any AccountStore {
        guard let settings = try postgresSettings(environment: environment) else {
            return try openFile(databaseFile(environment: environment.variables))
        }
        do {
            return try PostgresAccountStore(settings: settings)
        } catch {
            throw .accounts(key: "backend.database", "\(settings.redactedURL): \(error.detail)")
        }
    }

    /// The PostgreSQL database's settings, its password resolved; nil for SQLite.
    package func postgresSettings(environment: SecretEnvironment) throws(BackendSetupError) -> PostgresSettings? {
        guard let postgres else { return nil }
        let password = try postgres.password.map { reference throws(BackendSetupError) in
            try BackendSetupError.resolve(reference, key: "backend.database.password", in: environment)
        }
        return PostgresSettings(
            url: postgres.url, password: password, poolSize: postgres.poolSize,
            statementTimeout: .milliseconds(postgres.statementTimeoutMs))
    }

    /// The state key the PostgreSQL database keeps for instances whose config names no `stateKey` (docs/ACCOUNTS.md
    /// "Keys the database keeps"): the first instance's `candidate`. Nil for SQLite.
    package func storedStateKey(candidate: [UInt8], environment: SecretEnvironment) throws(BackendSetupError)
        -> [UInt8]?
    {
        guard let settings = try postgresSettings(environment: environment) else { return nil }
        do {
            return try PostgresAccountStore.storedKey(
                PostgresAccountStore.stateKeyName, candidate: candidate, settings: settings, at: Date())
        } catch {
            throw .accounts(key: "backend.database", "\(settings.redactedURL): \(error.detail)")
        }
    }

    private func openFile(_ file: String) throws(BackendSetupError) -> SQLiteAccountStore {
        let directory = (file as NSString).deletingLastPathComponent
        if databasePath == nil, !FileManager.default.fileExists(atPath: directory) {
            // Outside systemd (which makes StateDirectory=) the default directory may not exist yet.
            try? FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        do {
            return try SQLiteAccountStore(path: file)
        } catch {
            throw .accounts(key: "backend.database", "\(file): \(error)")
        }
    }

    /// `signingKey` (or the file beside the database, made when missing; with PostgreSQL, the key the database keeps),
    /// `nextSigningKey`, `previousSigningKeys`; on PostgreSQL, the state key checked against the database's
    /// (``DatabaseKeys``), last, after every other step that may fail.
    private func signingKeys(besides database: String, setup: AccountsSetup) throws(BackendSetupError)
        -> SigningKeyRing
    {
        func load(_ reference: SecretReference, key: String, create: Bool) throws(BackendSetupError)
            -> AccountSigningKey
        {
            do {
                // With PostgreSQL every instance must sign with one key: it is never made per instance.
                if case .file(let path) = reference, create, postgres == nil {
                    return try SigningKeyFile.loadOrCreate(at: path)
                }
                let pem = try BackendSetupError.resolve(reference, key: key, in: setup.environment)
                return try AccountSigningKey(pem: pem, source: key)
            } catch let error as BackendSetupError {
                throw error
            } catch {
                throw .accounts(key: key, "\(error)")
            }
        }
        let directory = (database as NSString).deletingLastPathComponent
        let configured = try signingKey.map { reference throws(BackendSetupError) in
            try load(reference, key: "backend.signingKey", create: true)
        }
        let next = try nextSigningKey.map { reference throws(BackendSetupError) in
            try load(reference, key: "backend.nextSigningKey", create: false)
        }
        var previous: [AccountSigningKey] = []
        for (index, reference) in previousSigningKeys.enumerated() {
            previous.append(try load(reference, key: "backend.previousSigningKeys[\(index)]", create: false))
        }
        let current: AccountSigningKey
        if let settings = try postgresSettings(environment: setup.environment) {
            // Every instance seals with one state key and signs with one key (docs/ACCOUNTS.md "Keys the database
            // keeps"): checked, and without `signingKey` made by the first and kept sealed.
            let kept: AccountSigningKey?
            do {
                kept = try DatabaseKeys.settle(
                    settings: settings, stateKey: setup.stateKey, previousStateKeys: setup.previousStateKeys,
                    keepsSigningKey: configured == nil)
            } catch {
                throw .accounts(key: configured == nil ? "stateKey, backend.signingKey" : "stateKey", "\(error)")
            }
            guard let key = configured ?? kept else {
                throw .accounts(key: "backend.signingKey", "the database answered no signing key")
            }
            current = key
        } else if let configured {
            current = configured
        } else {
            current = try load(
                .file(directory + "/" + Self.defaultSigningKeyFile), key: "backend.signingKey", create: true)
        }
        do {
            return try SigningKeyRing(current: current, next: next, previous: previous)
        } catch {
            throw .accounts(key: "backend.signingKey", "\(error)")
        }
    }

    /// The hasher at `password.argon2id`, charged to `password.rateLimit` per client (the daemon's and
    /// `auth-handler accounts set-password`'s one way to hash).
    ///
    /// - Parameters:
    ///   - poolSize: threads hashing at once; default one per core.
    ///   - firebase: `importedHashes.firebase` resolved, for the users imported from Firebase.
    ///   - refusedLegacyHash: told why a stored imported hash matched nothing (``PasswordHasher``).
    package func passwordHasher(
        poolSize: Int = ProcessInfo.processInfo.activeProcessorCount, firebase: FirebaseScrypt.Parameters? = nil,
        refusedLegacyHash: (@Sendable (LegacyPasswordHash.Refusal) -> Void)? = nil
    ) throws(BackendSetupError) -> PasswordHasher {
        do {
            return try PasswordHasher(
                parameters: password.argon2id,
                budget: HashingBudget(perMinute: password.rateLimit.perMinute, burst: password.rateLimit.burst),
                poolSize: poolSize, firebase: firebase, refusedLegacyHash: refusedLegacyHash)
        } catch {
            throw .accounts(key: "backend.password.argon2id", "the dummy hash could not be made: \(error)")
        }
    }

    /// `password.minLength` and `password.blockList`: what a new password must be.
    package func passwordPolicy() throws(BackendSetupError) -> PasswordPolicy {
        guard let blockListFile = password.blockListFile else {
            return PasswordPolicy(minimumLength: password.minLength)
        }
        do {
            return PasswordPolicy(
                minimumLength: password.minLength, blockList: try PasswordBlockList(contentsOfFile: blockListFile))
        } catch {
            throw .accounts(key: "backend.password.blockList.file", "\(error)")
        }
    }

    private func mail(store: any AccountStore, setup: AccountsSetup) throws(BackendSetupError) -> AccountsMail? {
        guard let email else { return nil }
        let sender: MailSender
        do {
            sender = try MailSender(parsing: email.from)
        } catch {
            throw .accounts(key: "backend.email.from", "\(error)")
        }
        let mailer: any Mailer
        do {
            switch email.delivery {
            case .smtp(let url, let username, let password):
                let secret = try password.map { reference throws(BackendSetupError) in
                    try BackendSetupError.resolve(reference, key: "backend.email.smtp.password", in: setup.environment)
                }
                mailer = try SMTPMailer(
                    configuration: SMTPClientConfiguration(
                        url: url.absoluteString, username: username, password: secret?.reveal()))
            case .outbox(let directory):
                mailer = try OutboxMailer(directory: directory)
            }
        } catch let error as BackendSetupError {
            throw error
        } catch {
            throw .accounts(key: "backend.email", "\(error)")
        }
        let (metrics, report) = (setup.metrics, setup.report)
        return AccountsMail(
            queue: MailQueue(
                mailer: mailer, limits: store,
                report: { event in
                    metrics.mail(event)
                    report(event)
                }), sender: sender,
            appName: setup.appName, baseURL: setup.base)
    }

    /// The sign-in throttle: this instance's, and with PostgreSQL (several instances on one database) also counted in
    /// the database, so the instances throttle together (docs/ACCOUNTS.md "Guessing is throttled").
    private func throttle(store: any AccountStore, deviceCookies: DeviceCookie) -> any SignInThrottling {
        let local = SignInThrottle(deviceCookies: deviceCookies)
        return postgres == nil ? local : SharedSignInThrottle(local: local, counters: store)
    }

    /// A 32-byte key for `label`, derived from the state key.
    static func derive(_ stateKey: [UInt8], _ label: String) throws(BackendSetupError) -> [UInt8] {
        do {
            return try HKDF.sha256(inputKeyMaterial: stateKey, salt: [], info: Array(label.utf8), length: 32)
        } catch {
            throw .accounts(key: "stateKey", "a key could not be derived: \(error)")
        }
    }
}
