import AuthHandlerAccounts
import AuthHandlerCore
import AuthHandlerHTTP
import AuthHandlerStore
import AuthHandlerSystem
import Foundation

/// `auth-handler accounts ACTION`: the accounts backend's users for the operator (docs/OPERATIONS.md "Managing
/// accounts"), on the database file the daemon uses.
///
/// Safe beside a running daemon: the file is in WAL mode with a busy timeout, every change is one transaction
/// (`modifyUser` reads and writes the user under the file's write lock, so a sign-in's write in between is not lost),
/// and a file written by a newer auth-handler is refused, not migrated. Nothing it prints holds a password hash, a
/// token or a code.
struct AccountsCommand {
    let options: AccountsOptions
    let config: AccountsConfig
    /// The database file, for messages.
    let file: String
    let store: any AccountStore
    let output: CommandOutput
    let now: WallClock
    /// The process's environment and secrets, for `backend.importedHashes.firebase.signerKey`.
    let environment: SecretEnvironment

    /// Runs the action; every failure is one stderr line and its exit code (HTTP-API.md §1.2).
    static func run(_ options: AccountsOptions, context: CommandContext) async -> AuthHandlerExitCode {
        do {
            let command = try open(options, context: context)
            try await command.perform()
            return .success
        } catch {
            return context.fail(error.exitCode, error.message)
        }
    }

    /// Reads the config (78 unless it is valid and its backend is `accounts`) and opens the database (2 when it is
    /// missing, unreadable or newer than this binary).
    private static func open(_ options: AccountsOptions, context: CommandContext) throws(CommandFailure)
        -> AccountsCommand
    {
        let path = options.config.path
        let environment = SecretEnvironment(variables: context.environment)
        let loaded: AuthHandlerConfig
        switch ServeCommand.readConfig(path: path, environment: environment).0 {
        case .success(let config): loaded = config
        case .failure(let message): throw CommandFailure(.config, message)
        }
        guard case .accounts(let config) = loaded.backend else {
            throw CommandFailure(
                .config,
                "\(path) has backend kind \"\(loaded.backend.kind.rawValue)\"; 'accounts' works on the users of "
                    + "backend kind \"accounts\" only")
        }
        if let postgres = config.postgres {
            let store: any AccountStore
            do {
                store = try config.openStore(environment: environment)
            } catch {
                throw CommandFailure(.providerError, "the accounts database: \(error)")
            }
            return AccountsCommand(
                options: options, config: config, file: PostgresSettings.redacted(postgres.url), store: store,
                output: context.output, now: systemWallClock, environment: environment)
        }
        let file = config.databaseFile(environment: context.environment)
        // Not created here: an empty file made by the wrong user (root) would lock the daemon out of it.
        guard FileManager.default.fileExists(atPath: file) else {
            throw CommandFailure(
                .providerError,
                "no accounts database at \(file); 'auth-handler serve' makes it at its first start with this config "
                    + "(check backend.database.path and $STATE_DIRECTORY)")
        }
        let store: SQLiteAccountStore
        do {
            store = try SQLiteAccountStore(path: file)
        } catch {
            throw CommandFailure(.providerError, "the accounts database \(file): \(error.detail)")
        }
        return AccountsCommand(
            options: options, config: config, file: file, store: store, output: context.output, now: systemWallClock,
            environment: environment)
    }

    private func perform() async throws(CommandFailure) {
        switch options.action {
        case .list(let limit, let after): try await list(limit: limit, after: after.flatMap(LocalID.init))
        case .show(let text): try await show(try await user(text))
        case .disable(let text):
            let user = try await user(text)
            let (disabled, revoked) = try await revokingSessions(of: user) { $0.disabled = true }
            report(disabled, "disabled \(Self.name(of: user)); \(Self.sessions(revoked)) revoked", revoked: revoked)
        case .enable(let text):
            let enabled = try await modify(try await user(text)) { $0.disabled = false }
            report(enabled, "enabled \(Self.name(of: enabled))")
        case .revokeSessions(let text):
            let user = try await user(text)
            let (changed, revoked) = try await revokingSessions(of: user) { _ in }
            report(
                changed,
                "revoked \(Self.sessions(revoked)) of \(Self.name(of: user)); ID tokens from before now are "
                    + "refused where the daemon checks them",
                revoked: revoked)
        case .delete(let text, let confirmed):
            let user = try await user(text)
            guard confirmed else {
                throw CommandFailure(
                    .cancelled,
                    "'accounts delete' removes \(Self.name(of: user)) with its identities and sessions for good; "
                        + "add '--yes' to confirm: 'auth-handler accounts delete \(user.localID) --yes'")
            }
            _ = try await storing { () throws(StoreError) in try await store.deleteUser(localID: user.localID) }
            if options.json {
                output.line(Self.text(.object(["localId": .string(user.localID.value), "deleted": .bool(true)])))
            } else {
                output.line("deleted \(Self.name(of: user))")
            }
        case .setPassword(let text): try await setPassword(try await user(text))
        case .setClaims(let text, let source): try await setClaims(try await user(text), source: source)
        case .importUsers(let path, let format, let flags): try await importUsers(path, format: format, flags: flags)
        case .export(let file): try await export(to: file)
        }
    }

    // MARK: - Actions

    private func list(limit: Int, after: LocalID?) async throws(CommandFailure) {
        // One more than asked, to know whether another page follows.
        let users = try await storing { () throws(StoreError) in
            try await store.listUsers(after: after, limit: limit + 1)
        }
        let page = users.prefix(limit)
        for user in page {
            if options.json {
                output.line(Self.text(AccountView(user: user, identities: nil).json))
            } else {
                output.line(
                    [
                        user.localID.value, user.email ?? "-", user.emailVerified ? "verified" : "unverified",
                        user.disabled ? "disabled" : "enabled", "created=" + Self.time(user.createdAt),
                        "last-sign-in=" + (user.lastSignInAt.map(Self.time) ?? "never"),
                    ].joined(separator: "\t"))
            }
        }
        if users.count > limit, let last = page.last {
            output.writeError("more users follow: auth-handler accounts list --after \(last.localID)\n")
        }
    }

    private func show(_ user: AccountUser) async throws(CommandFailure) {
        let identities = try await storing { () throws(StoreError) in try await store.identities(of: user.localID) }
        let live = try await liveSessions(of: user)
        if options.json {
            guard case .object(var members) = AccountView(user: user, identities: identities).json else { return }
            members["liveSessions"] = .integer(Int64(live))
            output.line(Self.text(.object(members)))
            return
        }
        var lines = [
            ("localId", user.localID.value),
            ("email", user.email.map { $0 + (user.emailVerified ? " (verified)" : " (not verified)") } ?? "-"),
            ("displayName", user.displayName ?? "-"), ("photoUrl", user.photoURL ?? "-"),
            ("disabled", user.disabled ? "yes" : "no"), ("password", user.hasPassword ? "set" : "none"),
            ("customClaims", user.customClaims ?? "-"), ("created", Self.time(user.createdAt)),
            ("lastSignIn", user.lastSignInAt.map(Self.time) ?? "never"), ("validSince", Self.time(user.validSince)),
            ("liveSessions", String(live)), ("identities", identities.isEmpty ? "none" : String(identities.count)),
        ].map { "\($0.0):".padding(toLength: 14, withPad: " ", startingAt: 0) + $0.1 }
        for identity in identities {
            lines.append("  \(identity.providerID)\t\(identity.providerUserID)\t\(identity.email ?? "-")")
        }
        for line in lines { output.line(line) }
    }

    /// Reads the password (one line of stdin, without echo at a terminal), checks it against the policy, hashes it
    /// with the configured argon2id parameters, stores it and revokes the user's sessions (as a password change
    /// does, docs/ACCOUNTS.md).
    private func setPassword(_ user: AccountUser) async throws(CommandFailure) {
        let bytes: [UInt8]
        do {
            bytes = try StandardInput.readLine(maximumBytes: NormalizedPassword.maximumInputBytes) {
                output.writeError("New password for \(Self.name(of: user)): ")
            }
        } catch .empty {
            throw CommandFailure(
                .usage, "no password on standard input; type it at the prompt or pipe it in, one line")
        } catch .tooLong {
            throw CommandFailure(.usage, WeakPassword.tooLong(max: PasswordPolicy.maximumLength).description)
        } catch {
            throw CommandFailure(.providerError, error.description)
        }
        guard let raw = String(validating: bytes, as: UTF8.self) else {
            throw CommandFailure(.usage, "the password is not valid UTF-8")
        }
        let policy = try policy()
        let normalized: NormalizedPassword
        do {
            normalized = try policy.check(raw)
        } catch {
            throw CommandFailure(.usage, "the password is refused: \(error.description)")
        }
        let hash: String
        do {
            let hasher = try config.passwordHasher(poolSize: 1)
            guard case .done(let made) = try await hasher.hash(normalized, client: .commandLine) else {
                throw CommandFailure(.providerError, "the password could not be hashed now; try again")
            }
            hash = made
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure(.providerError, "the password could not be hashed: \(error)")
        }
        let (changed, revoked) = try await revokingSessions(of: user) { user in
            user.setPasswordHash(hash)
            user.passwordVersion += 1
        }
        report(changed, "password set for \(Self.name(of: user)); \(Self.sessions(revoked)) revoked", revoked: revoked)
    }

    /// Sets the custom claims from JSON (`null` or `{}` clears them), checked as `CustomClaims` checks them.
    private func setClaims(_ user: AccountUser, source: AccountsAction.ClaimsSource) async throws(CommandFailure) {
        let bytes: [UInt8]
        switch source {
        case .argument(let text): bytes = Array(text.utf8)
        case .standardInput:
            do {
                bytes = try StandardInput.readAll(maximumBytes: 64 * 1024)
            } catch .system(let error) {
                throw CommandFailure(.providerError, "reading the claims from standard input: \(error)")
            } catch {
                throw CommandFailure(.usage, "custom claims on standard input: \(error)")
            }
        }
        let stored = try Self.storedClaims(bytes)
        let changed = try await modify(user) { $0.customClaims = stored }
        let what = stored.map { "set to \($0)" } ?? "cleared"
        report(changed, "custom claims of \(Self.name(of: user)) \(what); ID tokens show it from the next refresh")
    }

    /// The claims as the store keeps them: nil for `null` or `{}`, else their compact JSON text; 64 for what
    /// `CustomClaims` refuses.
    static func storedClaims(_ bytes: [UInt8]) throws(CommandFailure) -> String? {
        if JSONValue.parse(bytes) == .null { return nil }
        let claims: CustomClaims
        do {
            claims = try CustomClaims(parsing: bytes)
        } catch {
            throw CommandFailure(.usage, "\(error.description); e.g. '{\"role\": \"admin\"}', or null to clear")
        }
        return claims.members.isEmpty ? nil : text(claims.json)
    }

    // MARK: - Steps

    /// The user `text` names: an e-mail address (with an `@`, compared in its normal form) or a localId; 64 when
    /// there is none.
    private func user(_ text: String) async throws(CommandFailure) -> AccountUser {
        let found: AccountUser?
        if text.contains("@") {
            let email: EmailAddress
            do {
                email = try EmailAddress(parsing: text)
            } catch {
                throw CommandFailure(.usage, "'\(text)' is not a valid e-mail address: \(error)")
            }
            found = try await storing { () throws(StoreError) in
                try await store.user(normalizedEmail: email.normalized)
            }
        } else {
            guard let localID = LocalID(text) else {
                throw CommandFailure(.usage, "'\(text)' is neither a localId nor an e-mail address")
            }
            found = try await storing { () throws(StoreError) in try await store.user(localID: localID) }
        }
        guard let found else {
            throw CommandFailure(.usage, "no user '\(text)' in \(file); 'auth-handler accounts list' lists them")
        }
        return found
    }

    /// `change` applied to the user in one transaction; 64 when the user went meanwhile.
    private func modify(_ user: AccountUser, _ change: @escaping @Sendable (inout AccountUser) -> Void)
        async throws(CommandFailure) -> AccountUser
    {
        let changed = try await storing { () throws(StoreError) in
            try await store.modifyUser(localID: user.localID, change)
        }
        guard let changed else { throw CommandFailure(.usage, "user \(user.localID) was deleted meanwhile") }
        return changed
    }

    /// `change` with the user's `validSince` moved to now, then every session revoked: the first step already ends
    /// every session signed in before (a refresh checks `validSince`), so none outlives the command between the two.
    /// Answers the user as written and how many sessions were revoked.
    private func revokingSessions(
        of user: AccountUser, _ change: @escaping @Sendable (inout AccountUser) -> Void
    ) async throws(CommandFailure) -> (AccountUser, Int) {
        let at = now()
        let changed = try await modify(user) { user in
            change(&user)
            user.validSince = at
        }
        let revoked = try await storing { () throws(StoreError) in
            try await store.revokeSessions(of: user.localID, except: nil, at: at)
        }
        return (changed, revoked)
    }

    /// The sessions a refresh would accept now, by the configured idle and absolute limits.
    private func liveSessions(of user: AccountUser) async throws(CommandFailure) -> Int {
        let at = now()
        let day: TimeInterval = 86400
        return try await storing { () throws(StoreError) in
            try await store.liveSessionCount(
                of: user.localID, idleSince: at - TimeInterval(config.refreshToken.idleDays) * day,
                signedInSince: at - TimeInterval(config.refreshToken.absoluteDays) * day)
        }
    }

    private func policy() throws(CommandFailure) -> PasswordPolicy {
        do {
            return try config.passwordPolicy()
        } catch {
            throw CommandFailure(.config, error.description)
        }
    }

    /// Runs a store call; its failure is the database error, exit 2.
    func storing<Value: Sendable>(_ call: () async throws(StoreError) -> Value) async throws(CommandFailure)
        -> Value
    {
        do {
            return try await call()
        } catch {
            throw CommandFailure(.providerError, "the accounts database \(file): \(error)")
        }
    }

    /// What a change did: `message` for people, or the account as `show --json` prints it (with `revokedSessions`).
    private func report(_ user: AccountUser, _ message: String, revoked: Int? = nil) {
        guard options.json else {
            output.line(message)
            return
        }
        guard case .object(var members) = AccountView(user: user, identities: nil).json else { return }
        if let revoked { members["revokedSessions"] = .integer(Int64(revoked)) }
        output.line(Self.text(.object(members)))
    }

    // MARK: - Text

    static func text(_ json: JSONValue) -> String {
        String(decoding: json.serialized(sortingKeys: true), as: UTF8.self)
    }

    /// The localId with the e-mail, when there is one.
    private static func name(of user: AccountUser) -> String {
        user.email.map { "\(user.localID) (\($0))" } ?? user.localID.value
    }

    private static func sessions(_ count: Int) -> String {
        count == 1 ? "1 session" : "\(count) sessions"
    }

    /// `2026-12-03T06:00:00Z`.
    private static func time(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}
