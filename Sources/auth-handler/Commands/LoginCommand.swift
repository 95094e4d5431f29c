import AuthHandlerCore
import AuthHandlerHTTP
import AuthHandlerProtocols
import AuthHandlerSystem
import FakeIdP
import Foundation

/// Options of `login`: a device sign-in (RFC 8628) through an auth-handler server (HTTP-API.md §1.5).
struct LoginOptions: Sendable, Hashable {
    /// The server's public URL (`--server`), e.g. `https://auth.example.com`.
    var server: String
    /// The provider id (`--provider`).
    var providerID: String
    /// Extra scopes (`--scope`, repeatable), in order.
    var scopes: [String] = []
    /// Custom parameters for the provider (`--param K=V`, repeatable).
    var parameters: [OnceOptions.Parameter] = []
    /// Write the result to this file, mode 0600, instead of stdout (`--output`).
    var outputPath: String?
    /// Where an accounts sign-in's session is kept (`--session-file`); by default one file per server
    /// (`SessionFile`, HTTP-API.md §1.9).
    var sessionPath: String?
}

/// `auth-handler login`: asks the server for a device code, shows the user where to enter it, polls as RFC 8628 §3.4
/// and §3.5 say, and writes the result JSON; exit codes as `--once`'s (HTTP-API.md §1.2, §1.7). A sign-in to the
/// server's own accounts ends signed in: its session is kept in the session file and the refresh token is left out of
/// the JSON (`AccountsLogin`).
enum LoginCommand {
    typealias Failure = CommandFailure

    /// Runs `login`; `showQRCode` draws `verification_uri_complete` as a QR code (by default, when stderr is a
    /// terminal, isatty(3)).
    static func run(
        _ options: LoginOptions, context: CommandContext, http: (any HTTPFetching)? = nil,
        showQRCode: Bool = isatty(STDERR_FILENO) == 1
    ) async -> AuthHandlerExitCode {
        do throws(Failure) {
            let server = try checkUsage(options)
            let client: any HTTPFetching
            let verifier: String
            let challenge: String
            do {
                client = try http ?? HTTPClient()
                verifier = try PKCE.makeVerifier()
                challenge = try PKCE.challenge(forVerifier: verifier)
            } catch {
                throw Failure(.providerError, "cannot set up the sign-in: \(error)")
            }
            let issued = try await requestCodes(options, challenge: challenge, server: server, client: client)
            context.output.writeError(instructions(issued, showQRCode: showQRCode))
            let answer = try await poll(issued, verifier: verifier, server: server, client: client, context: context)
            let result = try await AccountsLogin.keep(answer, server: server, options: options, context: context)
            if let path = options.outputPath {
                if let problem = ResultFile.save(result + [UInt8(ascii: "\n")], to: path) {
                    throw Failure(.providerError, problem)
                }
            } else {
                context.output.writeOutput(String(decoding: result, as: UTF8.self) + "\n")
            }
            return .success
        } catch {
            return context.fail(error.exitCode, error.message)
        }
    }

    /// The usage checks (exit 64): the `--scope`s, the `--output` path and the `--server` URL, returned without a
    /// trailing `/`.
    static func checkUsage(_ options: LoginOptions) throws(Failure) -> String {
        try CommandFailure.checkScopes(options.scopes)
        try CommandFailure.checkOutput(options.outputPath)
        let server = try CommandFailure.checkServer(options.server)
        if let named = options.sessionPath {
            _ = try SessionFile.resolve(option: named, server: server, environment: [:])
        }
        return server
    }

    /// `POST /__/auth/device` with the provider, scopes, custom parameters and `resultChallenge`.
    static func requestCodes(_ options: LoginOptions, challenge: String, server: String, client: any HTTPFetching)
        async throws(Failure) -> DeviceIssue
    {
        var fields = [
            URLFormField(name: "providerId", value: options.providerID),
            URLFormField(name: "resultChallenge", value: challenge),
        ]
        if !options.scopes.isEmpty {
            fields.append(URLFormField(name: "scopes", value: options.scopes.joined(separator: ",")))
        }
        if !options.parameters.isEmpty {
            let members = Dictionary(
                uniqueKeysWithValues: options.parameters.map { ($0.name, JSONValue.string($0.value)) })
            fields.append(
                URLFormField(
                    name: "customParameters",
                    value: String(decoding: JSONValue.object(members).serialized, as: UTF8.self)))
        }
        let answer = try await post(fields, to: server + "/__/auth/device", client: client)
        guard answer.status == 200 else {
            throw Failure(.providerError, "\(server) refused the device sign-in: \(refusal(answer))")
        }
        guard let issued = JSONValue.parse(answer.body).flatMap(DeviceIssue.init(json:)) else {
            throw Failure(.providerError, "\(server) answered without device_code, user_code or verification_uri")
        }
        return issued
    }

    /// What the person is told on stderr: where to go, the code, and the QR code when `showQRCode`.
    static func instructions(_ issued: DeviceIssue, showQRCode: Bool) -> String {
        var message =
            "To sign in, open \(issued.verificationURI) on any device and enter the code\n\n    \(issued.userCode)\n\n"
        if let complete = issued.verificationURIComplete {
            message += "or open \(complete)\n"
            // The QR code only where a person looks at it: not in a pipe, a log or a file.
            if showQRCode, let code = TerminalQRCode(complete) { message += "\n" + code.rendered() + "\n" }
        }
        return message + "Waiting for you to sign in...\n"
    }

    /// Polls `POST /__/auth/device/token` as RFC 8628 §3.4 and §3.5 say until it answers the result (returned) or an
    /// error that ends the sign-in, or `expires_in` has passed.
    static func poll(
        _ issued: DeviceIssue, verifier: String, server: String, client: any HTTPFetching, context: CommandContext
    ) async throws(Failure) -> [UInt8] {
        var interval = issued.interval
        let expired = Failure(.timedOut, "the code expired before anyone signed in; run the command again")
        let deadline = ContinuousClock.now + .seconds(issued.expiresIn)
        let fields = [
            URLFormField(name: "grant_type", value: DeviceAuthorization.grantType),
            URLFormField(name: "device_code", value: issued.deviceCode),
            URLFormField(name: "verifier", value: verifier),
        ]
        while ContinuousClock.now <= deadline {
            do {
                try await Task.sleep(for: .seconds(interval))
            } catch {
                throw Failure(.cancelled, "stopped before the sign-in finished")
            }
            let answer: OutboundResponse
            do throws(Failure) {
                answer = try await post(fields, to: server + "/__/auth/device/token", client: client)
            } catch {
                // RFC 8628 §3.5: a client keeps polling through a failed request, waiting longer.
                context.output.errorLine("\(error.message); retrying")
                interval += 5
                continue
            }
            if answer.status == 200 { return answer.body }
            let object = JSONValue.parse(answer.body)?.objectValue
            let error = object?["error"]?.stringValue ?? "HTTP \(answer.status)"
            let description = object?["error_description"]?.stringValue ?? ""
            switch error {
            case "authorization_pending", "temporarily_unavailable":
                continue
            case "slow_down":
                // RFC 8628 §3.5: 5 seconds more for this and every later request.
                interval = DeviceIssue.seconds(object?["interval"]) ?? interval + 5
            case "access_denied":
                throw Failure(.cancelled, "the sign-in was declined or cancelled: \(description)")
            case "expired_token":
                throw expired
            default:
                throw Failure(.providerError, "the sign-in failed: \(error): \(description)")
            }
        }
        throw expired
    }

    private static func post(_ fields: [URLFormField], to url: String, client: any HTTPFetching) async throws(Failure)
        -> OutboundResponse
    {
        let request = OutboundRequest(
            method: "POST", url: url,
            headers: ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"],
            body: Array(FormURLEncoding.encode(fields).utf8), timeout: .seconds(30))
        do {
            return try await client.send(request)
        } catch {
            throw Failure(.providerError, "cannot reach \(url): \(error)")
        }
    }

    private static func refusal(_ answer: OutboundResponse) -> String {
        let error = JSONValue.parse(answer.body)?.objectValue?["error"]?.objectValue
        let code = error?["code"]?.stringValue ?? "HTTP \(answer.status)"
        return code + (error?["message"]?.stringValue.map { ": \($0)" } ?? "")
    }
}
