import AuthHandlerCore
import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerProtocols
import AuthHandlerSystem
import FakeIdP
import Foundation

/// `auth-handler --once --provider ID [options]`: one RFC 8252 loopback sign-in on 127.0.0.1, then exit.
///
/// The handler listens on `127.0.0.1:--port`, so the redirect URI is `http://127.0.0.1:PORT/__/auth/handler`
/// (RFC 8252 §7.3), and sends the browser back to its own page `/__/auth/done`, which redeems the result
/// through the flow; the result JSON goes to stdout or `--output`.
enum OnceCommand {
    /// The handler's own page the browser comes back to; served in `--once` only.
    static let donePath = "/__/auth/done"
    /// The largest `--id-token-file` read (ID tokens are a few KiB).
    static let maximumIDTokenBytes = 64 * 1024

    /// How the wait for the browser ended.
    enum Ending: Sendable {
        case outcome(OnceOutcome)
        case interrupted(Int32)
        case timedOut
    }

    typealias Failure = CommandFailure

    /// The sign-in's own values: its event id and the result challenge's verifier and challenge.
    struct SignInSecrets {
        let eventID: String
        let verifier: String
        let challenge: String
    }

    /// Runs one sign-in; returns the exit code after writing at most one failure line on stderr (besides the URL).
    static func run(_ options: OnceOptions, context: CommandContext) async -> AuthHandlerExitCode {
        // First, so that a Ctrl-C from here on is a clean cancellation (exit 1), not a kill.
        // SIGHUP too (a closed terminal): --once has nothing to reload, so it cancels like Ctrl-C.
        let signals = TerminationSignals([SIGINT, SIGTERM, SIGHUP])
        let secrets = SecretEnvironment(variables: context.environment)
        let idToken: String?
        let config: AuthHandlerConfig
        let signIn: SignInSecrets
        do throws(Failure) {
            idToken = try checkUsage(options)
            config = try OnceConfiguration.load(
                options, environment: context.environment, secrets: secrets,
                currentDirectory: FileManager.default.currentDirectoryPath
            ).mapError { Failure(.config, $0.message) }.get()
            signIn = try makeSignInSecrets()
        } catch {
            return context.fail(error.exitCode, error.message)
        }
        let page = OnceDonePage(
            providerID: options.providerID, eventID: signIn.eventID, verifier: signIn.verifier, idToken: idToken)
        let onceSignIn = OnceSignIn()
        let running: RunningService
        let authorizationURL: String
        do throws(Failure) {
            running = try await startService(config, secrets: secrets, page: page, onceSignIn: onceSignIn, options)
            let fields = startFields(
                options, eventID: signIn.eventID, resultChallenge: signIn.challenge,
                redirectURL: running.baseURL + donePath)
            authorizationURL = try await startSignIn(fields, on: running, onceSignIn: onceSignIn, options)
        } catch {
            return context.fail(error.exitCode, error.message)
        }
        context.output.writeError("Open this URL to sign in: \(authorizationURL)\n")
        if !options.noBrowser {
            _ = BrowserLauncher.open(authorizationURL, environment: context.environment)
        }

        let ending = await waitForEnding(page: page, signals: signals, timeout: .seconds(options.timeoutSeconds))
        let code = finish(ending, options: options, context: context)
        await running.stop()
        return code
    }

    /// The usage checks (exit 64), made before any configuration problem (78): the `--scope`s, the
    /// `--id-token-file` (whose token it returns) and the `--output` path.
    static func checkUsage(_ options: OnceOptions) throws(Failure) -> String? {
        try CommandFailure.checkScopes(options.scopes)
        var idToken: String?
        if let linking = options.linking {
            idToken = try readIDToken(linking.idTokenFile).mapError { Failure(.usage, $0.message) }.get()
        }
        try CommandFailure.checkOutput(options.outputPath)
        return idToken
    }

    /// A random event id, and the result challenge of HTTP-API.md §3.3: this process is both the starter and the
    /// redeemer, but HTTP-API.md's default (requireResultChallenge) holds for --once too.
    static func makeSignInSecrets() throws(Failure) -> SignInSecrets {
        do {
            let eventID = "once-" + (try SecureRandom.base64URLString(byteCount: 16))
            let verifier = try PKCE.makeVerifier()
            return SignInSecrets(
                eventID: eventID, verifier: verifier, challenge: try PKCE.challenge(forVerifier: verifier))
        } catch {
            throw Failure(.config, "the system's random generator failed: \(error); check the OpenSSL setup")
        }
    }

    /// Starts the service on `127.0.0.1:--port` with the done page; a failure to listen names `--port`.
    static func startService(
        _ config: AuthHandlerConfig, secrets: SecretEnvironment, page: OnceDonePage, onceSignIn: OnceSignIn,
        _ options: OnceOptions
    ) async throws(Failure) -> RunningService {
        do {
            return try await RunningService.start(
                config: config, environment: secrets, log: EventLog(sink: DiscardingLogSink()), defaultStore: .memory,
                extraRoutes: [donePath: { request, flow in await page.respond(request, flow: flow) }],
                onceSignIn: onceSignIn)
        } catch {
            let prefix = "cannot listen: "
            guard error.message.hasPrefix(prefix) else { throw Failure(error.exitCode, error.message) }
            let reason = error.message.dropFirst(prefix.count).replacingOccurrences(
                of: "; check 'listen' in the config", with: "")
            throw Failure(
                error.exitCode,
                "cannot listen on 127.0.0.1:\(options.port): \(reason); pass another --port, or 0 for any free port")
        }
    }

    /// Starts the sign-in through the flow and keeps its pending state; the provider's authorization URL. On
    /// failure the service is stopped.
    static func startSignIn(
        _ fields: [URLFormField], on running: RunningService, onceSignIn: OnceSignIn, _ options: OnceOptions
    ) async throws(Failure) -> String {
        do {
            let answer = try await running.service.flow.start(fields)
            onceSignIn.keep(answer)
            return answer.location
        } catch {
            await running.stop()
            // A 400 is the command line's fault (a reserved --param, a bad --scope); anything else the provider's.
            if error.status == 400 { throw Failure(.usage, error.message) }
            throw Failure(.providerError, "cannot start the sign-in with \(options.providerID): \(error.message)")
        }
    }

    /// Reports the ending: the result (or an actionable error document) to the output, one line on failure.
    static func finish(_ ending: Ending, options: OnceOptions, context: CommandContext) -> AuthHandlerExitCode {
        switch ending {
        case .outcome(.signedIn(let result)):
            if let problem = deliver(result, options: options, context: context) {
                return context.fail(.usage, "signed in, but the result is lost: \(problem)")
            }
            return .success
        case .outcome(.failed(let code, let message, let document)):
            if let document { _ = deliver(document, options: options, context: context) }
            return context.fail(code, message)
        case .interrupted(let signal):
            let name = signal == SIGINT ? "Ctrl-C (SIGINT)" : signal == SIGHUP ? "SIGHUP" : "SIGTERM"
            return context.fail(
                .cancelled, "cancelled by \(name) before the sign-in finished; run the command again to sign in")
        case .timedOut:
            return context.fail(
                .timedOut,
                "timed out after \(options.timeoutSeconds)s with no sign-in back from the browser; "
                    + "run again and finish the sign-in in the browser, or raise --timeout")
        }
    }

    /// The start request: provider, the done page, this run's eventId, scopes, custom parameters, authType.
    static func startFields(_ options: OnceOptions, eventID: String, resultChallenge: String, redirectURL: String)
        -> [URLFormField]
    {
        var fields = [
            URLFormField(name: "providerId", value: options.providerID),
            URLFormField(name: "redirectUrl", value: redirectURL),
            URLFormField(name: "eventId", value: eventID),
            URLFormField(name: "resultChallenge", value: resultChallenge),
        ]
        if !options.scopes.isEmpty {
            fields.append(URLFormField(name: "scopes", value: options.scopes.joined(separator: ",")))
        }
        if !options.parameters.isEmpty {
            var members: [String: JSONValue] = [:]
            for parameter in options.parameters { members[parameter.name] = .string(parameter.value) }
            let text = String(decoding: JSONValue.object(members).serialized(sortingKeys: true), as: UTF8.self)
            fields.append(URLFormField(name: "customParameters", value: text))
        }
        if let linking = options.linking {
            let authType: AuthType = linking.action == .link ? .linkViaRedirect : .reauthViaRedirect
            fields.append(URLFormField(name: "authType", value: authType.rawValue))
        }
        return fields
    }

    /// The first of: the done page's outcome, SIGINT/SIGTERM, the timeout.
    static func waitForEnding(page: OnceDonePage, signals: TerminationSignals, timeout: Duration) async -> Ending {
        await withTaskGroup(of: Ending?.self) { group in
            group.addTask {
                for await outcome in page.outcomes { return .outcome(outcome) }
                return nil
            }
            group.addTask { await signals.next().map { .interrupted($0) } }
            group.addTask {
                do {
                    try await Task.sleep(for: timeout)
                } catch {
                    return nil
                }
                return .timedOut
            }
            var ending = Ending.timedOut
            for await next in group {
                guard let next else { continue }
                ending = next
                break
            }
            group.cancelAll()
            return ending
        }
    }

    /// Writes `bytes` and a newline to `--output`, or to stdout; a one-line problem on failure.
    static func deliver(_ bytes: [UInt8], options: OnceOptions, context: CommandContext) -> String? {
        guard let path = options.outputPath else {
            context.output.writeOutput(String(decoding: bytes, as: UTF8.self) + "\n")
            return nil
        }
        return ResultFile.save(bytes + [UInt8(ascii: "\n")], to: path)
    }

    /// The ID token of `--id-token-file`, without surrounding whitespace.
    static func readIDToken(_ path: String) -> Result<String, OnceConfiguration.Problem> {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            return .failure(.init(message: "cannot read --id-token-file \(path); name a readable file"))
        }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: maximumIDTokenBytes + 1)) ?? Data()
        guard data.count <= maximumIDTokenBytes else {
            return .failure(.init(message: "--id-token-file \(path) is larger than 64 KiB; it must hold one ID token"))
        }
        let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty, !token.contains(where: \.isWhitespace) else {
            return .failure(
                .init(message: "--id-token-file \(path) must hold exactly one ID token (the signed-in user's)"))
        }
        return .success(token)
    }
}

/// Drops log lines: `--once` writes only the URL line and, on failure, one line on stderr.
struct DiscardingLogSink: LogSink {
    func write(_ line: String) {}
}
