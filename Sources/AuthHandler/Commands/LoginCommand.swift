import Foundation

/// Options of `login`: a device sign-in (RFC 8628) through an auth-handler server (HTTP-API.md §1.5).
public struct LoginOptions: Sendable, Hashable {
    /// The server's public URL (`--server`), e.g. `https://auth.example.com`.
    public var server: String
    /// The provider id (`--provider`).
    public var providerID: String
    /// Extra scopes (`--scope`, repeatable), in order.
    public var scopes: [String] = []
    /// Custom parameters for the provider (`--param K=V`, repeatable).
    public var parameters: [OnceOptions.Parameter] = []
    /// Write the result to this file, mode 0600, instead of stdout (`--output`).
    public var outputPath: String?

    public init(
        server: String, providerID: String, scopes: [String] = [], parameters: [OnceOptions.Parameter] = [],
        outputPath: String? = nil
    ) {
        self.server = server
        self.providerID = providerID
        self.scopes = scopes
        self.parameters = parameters
        self.outputPath = outputPath
    }
}

/// `auth-handler login`: asks the server for a device code, shows the user where to enter it, polls as RFC 8628 §3.4
/// and §3.5 say, and writes the result JSON; exit codes as `--once`'s (HTTP-API.md §1.2, §1.5).
public enum LoginCommand {
    /// The interval when the server names none (RFC 8628 §3.2).
    static let defaultInterval = 5

    /// Runs `login`; `showQRCode` draws `verification_uri_complete` as a QR code (by default, when stderr is a
    /// terminal, isatty(3)).
    public static func run(
        _ options: LoginOptions, context: CommandContext, http: (any HTTPFetching)? = nil,
        showQRCode: Bool = isatty(STDERR_FILENO) == 1
    ) async -> AuthHandlerExitCode {
        for scope in options.scopes where scope.contains(",") {
            return context.fail(.usage, "'--scope' takes one scope, got '\(scope)'; repeat '--scope' for each")
        }
        if let path = options.outputPath, let problem = ResultFile.problem(at: path) {
            return context.fail(.usage, problem)
        }
        var server = options.server
        while server.hasSuffix("/") { server.removeLast() }
        guard let url = URL(string: server), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
            url.host != nil, url.query == nil
        else {
            return context.fail(
                .usage, "'--server' expects the server's URL, such as https://auth.example.com; got '\(options.server)'"
            )
        }
        let client: any HTTPFetching
        do {
            client = try http ?? HTTPClient()
        } catch {
            return context.fail(.providerError, "cannot make an HTTP client: \(error)")
        }
        let verifier: String
        let challenge: String
        do {
            verifier = try PKCE.makeVerifier()
            challenge = try PKCE.challenge(forVerifier: verifier)
        } catch {
            return context.fail(.providerError, "the random generator failed")
        }
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
        let issued: [String: JSONValue]
        switch await post(fields, to: server + "/__/auth/device", client: client) {
        case .failure(let problem):
            return context.fail(.providerError, problem.description)
        case .success(let answer) where answer.status == 200:
            guard let object = JSONValue.parse(answer.body)?.objectValue else {
                return context.fail(.providerError, "\(server) did not answer with a device code")
            }
            issued = object
        case .success(let answer):
            return context.fail(.providerError, "\(server) refused the device sign-in: \(refusal(answer))")
        }
        guard let deviceCode = issued["device_code"]?.stringValue,
            let userCode = issued["user_code"]?.stringValue,
            let uri = issued["verification_uri"]?.stringValue
        else {
            return context.fail(.providerError, "\(server) answered without device_code, user_code or verification_uri")
        }
        let complete = issued["verification_uri_complete"]?.stringValue
        var message = "To sign in, open \(uri) on any device and enter the code\n\n    \(userCode)\n\n"
        if let complete {
            message += "or open \(complete)\n"
            // The QR code only where a person looks at it: not in a pipe, a log or a file.
            if showQRCode, let code = TerminalQRCode(complete) { message += "\n" + code.rendered() + "\n" }
        }
        message += "Waiting for you to sign in...\n"
        context.output.writeError(message)

        var interval = integer(issued["interval"]) ?? defaultInterval
        // A server that never says expired_token does not keep the command waiting past the code's life (RFC 8628
        // §3.2 expires_in, 600 s when it names none).
        let deadline = ContinuousClock.now + .seconds(integer(issued["expires_in"]) ?? 600)
        let poll = [
            URLFormField(name: "grant_type", value: DeviceAuthorization.grantType),
            URLFormField(name: "device_code", value: deviceCode), URLFormField(name: "verifier", value: verifier),
        ]
        while true {
            if ContinuousClock.now > deadline {
                return context.fail(.timedOut, "the code expired before anyone signed in; run the command again")
            }
            do {
                try await Task.sleep(for: .seconds(interval))
            } catch {
                return context.fail(.cancelled, "stopped before the sign-in finished")
            }
            let answer: HTTPResponse
            switch await post(poll, to: server + "/__/auth/device/token", client: client) {
            case .failure(let problem):
                // RFC 8628 §3.5: a client keeps polling through a failed request, waiting longer.
                context.output.errorLine("\(problem); retrying")
                interval += 5
                continue
            case .success(let response):
                answer = response
            }
            if answer.status == 200 {
                if let path = options.outputPath {
                    if let problem = ResultFile.save(answer.body + [UInt8(ascii: "\n")], to: path) {
                        return context.fail(.providerError, problem)
                    }
                } else {
                    context.output.writeOutput(String(decoding: answer.body, as: UTF8.self) + "\n")
                }
                return .success
            }
            let object = JSONValue.parse(answer.body)?.objectValue
            let error = object?["error"]?.stringValue ?? "HTTP \(answer.status)"
            let description = object?["error_description"]?.stringValue ?? ""
            switch error {
            case "authorization_pending":
                continue
            case "slow_down":
                // RFC 8628 §3.5: 5 seconds more for this and every later request.
                interval = integer(object?["interval"]) ?? interval + 5
            case "temporarily_unavailable":
                continue
            case "access_denied":
                return context.fail(.cancelled, "the sign-in was declined or cancelled: \(description)")
            case "expired_token":
                return context.fail(.timedOut, "the code expired before anyone signed in; run the command again")
            default:
                return context.fail(.providerError, "the sign-in failed: \(error): \(description)")
            }
        }
    }

    private static func integer(_ value: JSONValue?) -> Int? {
        guard case .integer(let number) = value, number > 0, number <= 3600 else { return nil }
        return Int(number)
    }

    private static func post(_ fields: [URLFormField], to url: String, client: any HTTPFetching) async
        -> Result<HTTPResponse, LoginProblem>
    {
        let request = HTTPRequest(
            method: "POST", url: url,
            headers: ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"],
            body: Array(FormURLEncoding.encode(fields).utf8), timeout: .seconds(30))
        do {
            return .success(try await client.send(request))
        } catch {
            return .failure(LoginProblem(description: "cannot reach \(url): \(error)"))
        }
    }

    private static func refusal(_ answer: HTTPResponse) -> String {
        let error = JSONValue.parse(answer.body)?.objectValue?["error"]?.objectValue
        let code = error?["code"]?.stringValue ?? "HTTP \(answer.status)"
        return code + (error?["message"]?.stringValue.map { ": \($0)" } ?? "")
    }
}

/// Why a request of `login` got no answer.
struct LoginProblem: Error, CustomStringConvertible {
    var description: String
}
