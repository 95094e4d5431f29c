import AuthHandlerClient
import Foundation

/// Options of `token` and `logout` (HTTP-API.md §1.9).
struct SessionCommandOptions: Sendable, Hashable {
    /// The server's public URL (`--server`), as given to `login`.
    var server: String
    /// The session file (`--session-file`); by default the server's under the state directory (`SessionFile`).
    var sessionPath: String?
    /// `token --force-refresh`: refresh even a fresh ID token.
    var forceRefresh = false
    /// `logout --scope`: which sessions end.
    var scope = SignOutScope.local

    /// `logout`'s `--scope` value, one of `local`, `others`, `global`.
    static func scope(parsing values: [String]) throws(CommandLineUsageError) -> SignOutScope {
        guard let text = values.last else { return .local }
        let names = SignOutScope.allCases.map(\.rawValue)
        guard values.count == 1, let scope = SignOutScope(rawValue: text) else {
            throw CommandLineUsageError(
                "'logout --scope' takes one of \(names.joined(separator: ", ")); got '\(values.joined(separator: " "))'"
            )
        }
        return scope
    }
}

/// `auth-handler token`: prints a fresh ID token of the session `login` kept (HTTP-API.md §1.9). The stored one while
/// it has more than ``margin`` left, else one from `POST /__/auth/token` (§3.10) through `AuthHandlerClient`, whose
/// file store saves the rotated refresh token (a temporary file renamed over the old one) before the token is
/// printed, so a crash in between loses nothing. The read, refresh and save happen under the session file's lock.
enum TokenCommand {
    typealias Failure = CommandFailure

    /// How long a stored ID token must still be valid to be printed: a script's request may take a while to reach
    /// its server, and the token must still be valid there (FirebaseAuth's iOS SDK refreshes proactively 5 minutes
    /// ahead, its `kTokenRefreshHeadStart`; `AuthHandlerClient`'s 60 s suits an app that sends the token at once).
    static let margin: TimeInterval = 300

    /// Runs `token`; `--force-refresh` refreshes even a fresh token (to see changed claims).
    static func run(_ options: SessionCommandOptions, context: CommandContext) async -> AuthHandlerExitCode {
        do throws(Failure) {
            let server = try CommandFailure.checkServer(options.server)
            let file = try SessionFile.resolve(
                option: options.sessionPath, server: server, environment: context.environment)
            // Read before waiting for the lock: when the refresh token changed meanwhile, another `token` refreshed
            // after this one started, and its ID token is as fresh as a forced refresh would be.
            let before = try? file.store.load()
            // Nothing kept: say so without creating the directory or the lock file.
            if before == nil, !FileManager.default.fileExists(atPath: file.path) {
                throw notSignedIn(server, options, file)
            }
            let token = try await file.withLock { () async throws(Failure) -> String in
                guard let session = try file.load() else { throw notSignedIn(server, options, file) }
                let rotatedMeanwhile = before?.refreshToken != session.refreshToken
                if !options.forceRefresh || rotatedMeanwhile, let user = AccountUser(idToken: session.idToken),
                    user.expiresAt.timeIntervalSinceNow > margin
                {
                    return session.idToken
                }
                let client = try AccountsSession.client(server, file)
                do throws(AuthHandlerClientError) {
                    _ = try await client.restoreSession()
                    return try await client.idToken(forceRefresh: true)
                } catch {
                    throw AccountsSession.failure(error, server, options, file)
                }
            }
            context.output.line(token)
            return .success
        } catch {
            return context.fail(error.exitCode, error.message)
        }
    }

    /// Exit 4: no session is kept for `server`.
    static func notSignedIn(_ server: String, _ options: SessionCommandOptions, _ file: SessionFile) -> Failure {
        Failure(
            .notSignedIn,
            "not signed in to \(server): no session in \(file.path); run "
                + "'auth-handler login --server \(server)\(AccountsSession.named(options)) --provider ID' first")
    }
}

/// `auth-handler logout`: ends the kept session at the server (`POST /__/auth/sign-out`, HTTP-API.md §3.10) and removes
/// the session file, what `gh auth logout` does (HTTP-API.md §1.9).
enum LogoutCommand {
    typealias Failure = CommandFailure

    /// Runs `logout` with `scope`: `local` ends this session, `global` every session of the user (both remove the
    /// file, also when the server cannot be told), `others` every other session (the file stays).
    static func run(_ options: SessionCommandOptions, context: CommandContext) async -> AuthHandlerExitCode {
        let scope = options.scope
        do throws(Failure) {
            let server = try CommandFailure.checkServer(options.server)
            let file = try SessionFile.resolve(
                option: options.sessionPath, server: server, environment: context.environment)
            guard FileManager.default.fileExists(atPath: file.path) else {
                throw TokenCommand.notSignedIn(server, options, file)
            }
            try await file.withLock { () async throws(Failure) in
                guard try file.load() != nil else { throw TokenCommand.notSignedIn(server, options, file) }
                let client = try AccountsSession.client(server, file)
                do throws(AuthHandlerClientError) {
                    _ = try await client.restoreSession()
                    try await client.signOut(scope: scope)
                } catch {
                    let removed = scope == .others ? "" : "the session file is removed, but "
                    let failure = AccountsSession.failure(error, server, options, file)
                    throw Failure(failure.exitCode, removed + failure.message)
                }
            }
            context.output.writeError(
                scope == .others
                    ? "Signed out every other session of \(server); this one stays in \(file.path).\n"
                    : "Signed out of \(server) (\(scope.rawValue)); removed \(file.path).\n")
            return .success
        } catch {
            return context.fail(error.exitCode, error.message)
        }
    }
}

/// What `token` and `logout` share: the client over the session file, and its errors as exit codes (HTTP-API.md §1.2).
enum AccountsSession {
    typealias Failure = CommandFailure

    /// An `AuthHandlerClient` of `server` whose session store is `file`.
    static func client(_ server: String, _ file: SessionFile) throws(Failure) -> AuthHandlerClient {
        guard let url = URL(string: server) else {
            throw Failure(.usage, "'--server' expects the server's URL, such as https://auth.example.com")
        }
        return AuthHandlerClient(baseURL: url, sessionStore: file.store)
    }

    /// ` --session-file FILE` when one was named, for the commands a message suggests.
    static func named(_ options: SessionCommandOptions) -> String {
        options.sessionPath.map { " --session-file \($0)" } ?? ""
    }

    /// The exit code and line for a client error. Its messages are the daemon's or the client's, which never hold a
    /// token (docs/CLIENTS.md "Accounts in Swift").
    static func failure(
        _ error: AuthHandlerClientError, _ server: String, _ options: SessionCommandOptions, _ file: SessionFile
    ) -> Failure {
        switch error {
        case .signedOut(let message):
            // `invalid_grant` (revoked, expired, reused, the user disabled): the client has removed the file. Its
            // message reads "the session ended (REASON); sign in again".
            Failure(
                .notSignedIn,
                "\(message) with 'auth-handler login --server \(server)\(named(options)) --provider ID'; "
                    + "\(file.path) is removed")
        case .networkError(let message):
            Failure(.providerError, "cannot reach \(server): \(message); the session is kept, try again")
        case .sessionStore(let message):
            Failure(.config, message)
        case .insecureBaseURL(let message), .invalidArgument(let message):
            Failure(.usage, message)
        default:
            Failure(.providerError, "\(server) refused: \(error.code ?? "error"): \(error.message)")
        }
    }
}
