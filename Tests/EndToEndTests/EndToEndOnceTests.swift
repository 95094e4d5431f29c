import AuthHandlerCore
import AuthHandlerHTTP
import AuthHandlerProtocols
import AuthHandlerSystem
import Foundation
import TestSupport
import Testing

/// A real `auth-handler fake-idp` and real `auth-handler --once` runs against it, with a browser made of the
/// project's HTTP client that follows the printed URL.
final class OnceHarness: Sendable {
    static let urlPrefix = "Open this URL to sign in: "

    let directory: URL
    let idp: TestProcess
    let idpURL: String
    let browser: HTTPClient

    private init(directory: URL, idp: TestProcess, idpURL: String, browser: HTTPClient) {
        self.directory = directory
        self.idp = idp
        self.idpURL = idpURL
        self.browser = browser
    }

    /// Starts the fake IdP and writes the secret files and a config that points the providers at it.
    static func start(identityToolkit: Bool = false) async throws -> OnceHarness {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("once-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let (idp, idpURL) = try await EndToEnd.startFakeIdP()
        for (name, value) in [
            ("client-secret", "fake-client-secret\n"), ("consumer-secret", "fake-consumer-secret"),
            ("api-key", "once-api-key"),
        ] {
            try Data(value.utf8).write(to: directory.appendingPathComponent(name))
        }
        let backend =
            identityToolkit
            ? "{\"kind\": \"identitytoolkit\", \"url\": \"\(idpURL)/identitytoolkit/v1\", "
                + "\"apiKey\": {\"file\": \"api-key\"}}"
            : #"{"kind": "none"}"#
        // Endpoints only: the credentials come from the command line.
        let config = """
            {
              "backend": \(backend),
              "providers": {
                "google.com": {"issuer": "\(idpURL)/oidc"},
                "twitter.com": {"endpoints": {"requestToken": "\(idpURL)/oauth1/request_token",
                  "authorize": "\(idpURL)/oauth1/authenticate", "accessToken": "\(idpURL)/oauth1/access_token",
                  "profile": "\(idpURL)/oauth1/account/verify_credentials.json?include_email=true"}}
              }
            }
            """
        try Data(config.utf8).write(to: directory.appendingPathComponent("config.json"))
        return OnceHarness(directory: directory, idp: idp, idpURL: idpURL, browser: try HTTPClient())
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// `--once` for google.com (OIDC) as `user`, with the harness config and flag credentials, plus `extra`.
    func google(user: String = "alice", _ extra: [String] = []) throws -> TestProcess {
        try once(
            [
                "--provider", "google.com", "--client-id", "fake-client-id", "--client-secret-file", "client-secret",
                "--param", "login_hint=\(user)",
            ] + extra)
    }

    /// `auth-handler --once --no-browser --config config.json ARGUMENTS`, run in the harness directory.
    func once(
        _ arguments: [String], environment: [String: String] = [:], config: Bool = true, noBrowser: Bool = true
    ) throws -> TestProcess {
        let configArguments = config ? ["--config", path("config.json")] : []
        let browserArguments = noBrowser ? ["--no-browser"] : []
        return try TestProcess(
            authHandler: ["--once"] + browserArguments + configArguments + arguments, environment: environment,
            directory: directory)
    }

    /// The URL the run prints on stderr.
    static func signInURL(_ run: TestProcess) async throws -> String {
        guard let url = await run.waitForErrorLine(startingWith: urlPrefix) else {
            throw TestProcessError("--once printed no sign-in URL: \(run.standardError)")
        }
        return url
    }

    /// Follows redirects from `url` as a browser would; returns the last response and its URL.
    func follow(_ url: String) async throws -> (response: OutboundResponse, url: String) {
        var current = url
        for _ in 0..<8 {
            let response = try await browser.send(OutboundRequest(method: "GET", url: current))
            guard (300..<400).contains(response.status), let location = response.headers["Location"] else {
                return (response, current)
            }
            current = location
        }
        throw TestProcessError("too many redirects from \(url)")
    }

    /// Follows the URL the run prints, then waits for its exit.
    func signIn(_ run: TestProcess) async throws -> (status: Int32, page: OutboundResponse, pageURL: String) {
        let (page, pageURL) = try await follow(try await Self.signInURL(run))
        return (await run.exitCode(), page, pageURL)
    }

    /// Queues a failure at the fake IdP.
    func queueFailure(_ json: String) async throws {
        let response = try await browser.send(
            OutboundRequest(
                method: "POST", url: idpURL + "/__fake/failures", headers: ["Content-Type": "application/json"],
                body: Array(json.utf8)))
        #expect(response.status == 200, "queueing \(json) answered \(response.status)")
    }

    func stop() async {
        await idp.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// The stderr lines other than the sign-in URL.
    static func failureLines(_ run: TestProcess) -> [Substring] {
        run.standardError.split(separator: "\n").filter { !$0.hasPrefix(urlPrefix) }
    }
}

/// Runs `body` with a started harness, always stopping it.
func withOnce<T>(identityToolkit: Bool = false, _ body: (OnceHarness) async throws -> T) async throws -> T {
    let harness = try await OnceHarness.start(identityToolkit: identityToolkit)
    return try await withCleanup({ await harness.stop() }) { try await body(harness) }
}

@Suite(.timeLimit(.minutes(3)))
struct EndToEndOnceTests {
    @Test("OIDC: the browser comes back to /__/auth/done, the result JSON goes to stdout, exit 0")
    func oidcSignIn() async throws {
        try await withOnce { harness in
            let run = try harness.google()
            defer { run.terminateIfRunning() }
            let url = try await OnceHarness.signInURL(run)
            #expect(url.hasPrefix(harness.idpURL + "/oidc/authorize?"))
            #expect(url.contains("redirect_uri=http%3A%2F%2F127.0.0.1%3A"))
            #expect(url.contains("%2F__%2Fauth%2Fhandler&"))
            #expect(url.contains("login_hint=alice"))
            let (page, pageURL) = try await harness.follow(url)
            let status = await run.exitCode()
            #expect(status == 0, "\(run.standardError)")
            #expect(pageURL.contains("/__/auth/done?code="))
            #expect(page.status == 200)
            let html = String(decoding: page.body, as: UTF8.self)
            #expect(html.contains("<h1>Signed in</h1>"), "no branding in the config: no product name")
            #expect(html.contains("You signed in with Google. The result is in your terminal."))
            #expect(html.contains("You can close this window and return to your terminal."))
            #expect(page.headers["Content-Security-Policy"]?.contains("frame-ancestors 'none'") == true)

            let result = try #require(JSONValue.parse(Array(run.standardOutput.utf8)), "\(run.standardOutput)")
            #expect(result["providerId"]?.stringValue == "google.com")
            #expect(result["authType"]?.stringValue == "signInViaRedirect")
            #expect(result["profile"]?["email"]?.stringValue == "alice@example.com")
            #expect(result["profile"]?["displayName"]?.stringValue == "Alice Example")
            #expect(result["signIn"] == .null)
            let accessToken = try #require(result["credential"]?["accessToken"]?.stringValue)
            let idToken = try #require(result["credential"]?["idToken"]?.stringValue)
            #expect(!html.contains(accessToken) && !html.contains(idToken))
            #expect(!run.standardError.contains(accessToken) && !run.standardError.contains(idToken))
            // The raw nonce, whose hash went to the provider (HTTP-API.md §3.1, §3.3); never in the URL or the page.
            let nonce = try #require(result["credential"]?["nonce"]?.stringValue)
            let hashed = try OIDCNonce.hashed(nonce)
            #expect(
                try FormURLEncoding.decode(String(url.split(separator: "?", maxSplits: 1)[1])).first(named: "nonce")
                    == hashed)
            #expect(!url.contains(nonce) && !html.contains(nonce) && !run.standardError.contains(nonce))
            // Only the URL line on stderr when signed in.
            #expect(run.standardError == OnceHarness.urlPrefix + url + "\n")
        }
    }

    @Test(
        "the --once port takes only its own sign-in's callback: no start, no picker, no /__/auth/result, no other browser"
    )
    func onceServesOnlyItsCallback() async throws {
        try await withOnce { harness in
            let run = try harness.google()
            defer { run.terminateIfRunning() }
            let url = try await OnceHarness.signInURL(run)
            let query = try FormURLEncoding.decode(String(url.split(separator: "?", maxSplits: 1)[1]))
            let redirectURI = try #require(query.first(named: "redirect_uri"))
            let base = String(redirectURI.dropLast("/__/auth/handler".count))
            let json: HTTPHeaders = ["Accept": "application/json"]
            let donePage = FormURLEncoding.percentEncode("http://127.0.0.1:1/__/auth/done")
            let start = try await harness.browser.send(
                OutboundRequest(
                    method: "GET", url: base + "/__/auth/handler?providerId=google.com&redirectUrl=" + donePage,
                    headers: json))
            #expect(start.status == 404, "\(start.text)")
            #expect(start.errorCode == "not-found")
            let picker = try await harness.browser.send(
                OutboundRequest(method: "GET", url: base + "/__/auth/signin?redirectUrl=" + donePage, headers: json))
            #expect(picker.status == 404 && picker.errorCode == "not-found", "\(picker.text)")
            let redeem = try await harness.browser.send(
                OutboundRequest(
                    method: "POST", url: base + "/__/auth/result",
                    headers: ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"],
                    body: Array("code=x".utf8)))
            #expect(redeem.status == 404, "\(redeem.text)")
            // A callback with another state finds no sign-in of this run.
            let forged = try await harness.browser.send(
                OutboundRequest(method: "GET", url: base + "/__/auth/handler?state=forged&code=x", headers: json))
            #expect(forged.status == 400 && forged.errorCode == "invalid-state")
            // The run is still waiting, and its own sign-in completes.
            let (page, _) = try await harness.follow(url)
            #expect(page.status == 200)
            #expect(await run.exitCode() == 0, "\(run.standardError)")
        }
    }

    @Test("OAuth 1.0a: twitter.com with --consumer-key and --consumer-secret-file, exit 0")
    func oauth1SignIn() async throws {
        try await withOnce { harness in
            let run = try harness.once([
                "--provider", "twitter.com", "--consumer-key", "fake-consumer-key", "--consumer-secret-file",
                harness.path("consumer-secret"), "--param", "screen_name=alice",
            ])
            defer { run.terminateIfRunning() }
            let (status, page, _) = try await harness.signIn(run)
            #expect(status == 0, "\(run.standardError)")
            #expect(page.status == 200)
            let result = try #require(JSONValue.parse(Array(run.standardOutput.utf8)), "\(run.standardOutput)")
            #expect(result["providerId"]?.stringValue == "twitter.com")
            #expect(result["profile"]?["screenName"]?.stringValue == "alice")
            #expect(result["credential"]?["secret"]?.stringValue?.isEmpty == false)
            #expect(result["credential"]?["nonce"] == .null)
        }
    }

    @Test("credentials from AUTH_HANDLER_CLIENT_ID and AUTH_HANDLER_CLIENT_SECRET_FILE work like the options")
    func credentialsFromEnvironment() async throws {
        try await withOnce { harness in
            let run = try harness.once(
                ["--provider", "google.com", "--param", "login_hint=bob"],
                environment: [
                    "AUTH_HANDLER_CLIENT_ID": "fake-client-id",
                    "AUTH_HANDLER_CLIENT_SECRET_FILE": harness.path("client-secret"),
                ])
            defer { run.terminateIfRunning() }
            let (status, _, _) = try await harness.signIn(run)
            #expect(status == 0, "\(run.standardError)")
            let result = JSONValue.parse(Array(run.standardOutput.utf8))
            #expect(result?["profile"]?["email"]?.stringValue == "bob@example.com")
        }
    }

    @Test("--output writes the result to a 0600 file (replacing a looser one) and nothing to stdout")
    func outputFile() async throws {
        try await withOnce { harness in
            let output = harness.path("result.json")
            try Data("old".utf8).write(to: URL(fileURLWithPath: output))
            #expect(chmod(output, 0o644) == 0)
            let run = try harness.google(["--output", output])
            defer { run.terminateIfRunning() }
            let (status, _, _) = try await harness.signIn(run)
            #expect(status == 0, "\(run.standardError)")
            #expect(run.standardOutput == "")
            var info = stat()
            #expect(stat(output, &info) == 0)
            #expect(info.st_mode & 0o777 == 0o600)
            let written = try Data(contentsOf: URL(fileURLWithPath: output))
            let result = try #require(JSONValue.parse(Array(written)))
            #expect(result["providerId"]?.stringValue == "google.com")
            #expect(result["profile"]?["email"]?.stringValue == "alice@example.com")
        }
    }

    @Test("--output through a symlink is refused before any sign-in: exit 64, one line")
    func outputSymlinkRefused() async throws {
        try await withOnce { harness in
            let target = harness.path("elsewhere")
            let link = harness.path("link.json")
            #expect(symlink(target, link) == 0)
            let run = try harness.google(["--output", link])
            defer { run.terminateIfRunning() }
            #expect(await run.exitCode() == 64)
            #expect(OnceHarness.failureLines(run).count == 1)
            #expect(run.standardError.contains("symlink"))
            #expect(!run.standardError.contains(OnceHarness.urlPrefix))
            #expect(!FileManager.default.fileExists(atPath: target))
        }
    }

    @Test("the user denies at the IdP: exit 1, one line, nothing on stdout")
    func denied() async throws {
        try await withOnce { harness in
            let run = try harness.google(user: "deny")
            defer { run.terminateIfRunning() }
            let (status, page, pageURL) = try await harness.signIn(run)
            #expect(status == 1)
            #expect(pageURL.contains("/__/auth/done?error=user-cancelled"))
            #expect(String(decoding: page.body, as: UTF8.self).contains("user-cancelled"))
            #expect(run.standardOutput == "")
            let lines = OnceHarness.failureLines(run)
            #expect(lines.count == 1, "\(run.standardError)")
            #expect(lines.first?.contains("cancelled") == true)
        }
    }

    @Test("the IdP's token endpoint fails: exit 2, one line")
    func tokenEndpointFailure() async throws {
        try await withOnce { harness in
            try await harness.queueFailure(#"{"endpoint": "oidc/token", "kind": "http-status", "status": 500}"#)
            let run = try harness.google()
            defer { run.terminateIfRunning() }
            let (status, _, pageURL) = try await harness.signIn(run)
            #expect(status == 2)
            #expect(pageURL.contains("/__/auth/done?error=provider-error"))
            #expect(run.standardOutput == "")
            let lines = OnceHarness.failureLines(run)
            #expect(lines.count == 1, "\(run.standardError)")
            #expect(lines.first?.contains("provider-error") == true)
        }
    }

    @Test("prompt=none answered with login_required: exit 2, the done page says interaction-required with 401")
    func interactionRequired() async throws {
        try await withOnce { harness in
            try await harness.queueFailure(
                #"{"endpoint": "oidc/authorize", "kind": "oauth-error", "error": "login_required"}"#)
            let run = try harness.google(["--param", "prompt=none"])
            defer { run.terminateIfRunning() }
            let (status, page, pageURL) = try await harness.signIn(run)
            #expect(status == 2)
            #expect(pageURL.contains("/__/auth/done?error=interaction-required"))
            #expect(page.status == 401)
            #expect(run.standardOutput == "")
            let lines = OnceHarness.failureLines(run)
            #expect(lines.count == 1, "\(run.standardError)")
            #expect(lines.first?.contains("interaction-required") == true)
            #expect(lines.first?.contains("login_required") == true)
        }
    }

    @Test("nobody follows the URL: exit 3 after --timeout, one line")
    func timesOut() async throws {
        try await withOnce { harness in
            let run = try harness.google(["--timeout", "1"])
            defer { run.terminateIfRunning() }
            _ = try await OnceHarness.signInURL(run)
            #expect(await run.exitCode() == 3)
            let lines = OnceHarness.failureLines(run)
            #expect(lines.count == 1, "\(run.standardError)")
            #expect(lines.first?.contains("timed out after 1s") == true)
            #expect(run.standardOutput == "")
        }
    }

    @Test(
        "SIGINT, SIGTERM or SIGHUP while waiting for the browser: exit 1 (cancelled), one line",
        arguments: [("SIGINT", SIGINT), ("SIGTERM", SIGTERM), ("SIGHUP", SIGHUP)])
    func interrupted(_ name: String, _ signal: Int32) async throws {
        try await withOnce { harness in
            let run = try harness.google()
            defer { run.terminateIfRunning() }
            _ = try await OnceHarness.signInURL(run)
            run.send(signal)
            #expect(await run.exitCode() == 1)
            let lines = OnceHarness.failureLines(run)
            #expect(lines.count == 1, "\(run.standardError)")
            #expect(lines.first?.contains(name) == true)
        }
    }

    @Test("a reserved --param is refused before any browser: exit 64 with the flow's message, one line")
    func reservedParameter() async throws {
        try await withOnce { harness in
            let run = try harness.google(["--param", "state=x"])
            defer { run.terminateIfRunning() }
            #expect(await run.exitCode() == 64)
            #expect(run.standardError.hasPrefix("auth-handler: "))
            #expect(run.standardError.contains("\"state\" is reserved"))
            #expect(run.standardError.split(separator: "\n").count == 1, "\(run.standardError)")
            #expect(run.standardOutput == "")
        }
    }

    @Test(
        "a built-in provider without config or credentials: exit 78, one line naming the options",
        .enabled(if: !FileManager.default.fileExists(atPath: ConfigLocation.defaultPath)))
    func missingCredentials() async throws {
        try await withOnce { harness in
            let run = try harness.once(["--provider", "google.com", "--client-id", "x"], config: false)
            defer { run.terminateIfRunning() }
            #expect(await run.exitCode() == 78)
            #expect(run.standardError.split(separator: "\n").count == 1, "\(run.standardError)")
            #expect(run.standardError.contains("--client-secret-file"))
            #expect(run.standardError.contains("AUTH_HANDLER_CLIENT_SECRET_FILE"))
        }
    }

    @Test("--auth-type link with --id-token-file links a second provider to the first sign-in's user")
    func linkToSignedInUser() async throws {
        try await withOnce(identityToolkit: true) { harness in
            let first = try harness.google()
            defer { first.terminateIfRunning() }
            let (firstStatus, _, _) = try await harness.signIn(first)
            #expect(firstStatus == 0, "\(first.standardError)")
            let signedIn = try #require(JSONValue.parse(Array(first.standardOutput.utf8)))
            let localID = try #require(signedIn["signIn"]?["localId"]?.stringValue)
            let idToken = try #require(signedIn["signIn"]?["idToken"]?.stringValue)
            try Data((idToken + "\n").utf8).write(to: URL(fileURLWithPath: harness.path("id-token")))

            let link = try harness.once([
                "--provider", "twitter.com", "--consumer-key", "fake-consumer-key", "--consumer-secret-file",
                harness.path("consumer-secret"), "--param", "screen_name=alice", "--auth-type", "link",
                "--id-token-file", harness.path("id-token"),
            ])
            defer { link.terminateIfRunning() }
            let (status, _, _) = try await harness.signIn(link)
            #expect(status == 0, "\(link.standardError)")
            let linked = try #require(JSONValue.parse(Array(link.standardOutput.utf8)), "\(link.standardOutput)")
            #expect(linked["authType"]?.stringValue == "linkViaRedirect")
            #expect(linked["signIn"]?["localId"]?.stringValue == localID)
        }
    }

    @Test(
        "without --no-browser, xdg-open from PATH gets the URL (here a stand-in that follows it like a browser)",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/curl")))
    func opensTheBrowser() async throws {
        try await withOnce { harness in
            let bin = harness.directory.appendingPathComponent("bin")
            try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
            let opened = harness.path("opened-url")
            let script = bin.appendingPathComponent("xdg-open")
            try Data("#!/bin/sh\nprintf '%s' \"$1\" > '\(opened)'\nexec /usr/bin/curl -s -L -o /dev/null \"$1\"\n".utf8)
                .write(to: script)
            #expect(chmod(script.path, 0o755) == 0)
            let run = try harness.once(
                [
                    "--provider", "google.com", "--client-id", "fake-client-id", "--client-secret-file",
                    "client-secret", "--param", "login_hint=alice", "--timeout", "60",
                ], environment: ["PATH": bin.path + ":/usr/bin:/bin"], noBrowser: false)
            defer { run.terminateIfRunning() }
            let url = try await OnceHarness.signInURL(run)
            // Nobody but the stand-in browser follows the URL, so exit 0 means xdg-open was run with it.
            #expect(await run.exitCode() == 0, "\(run.standardError)")
            #expect(try String(contentsOfFile: opened, encoding: .utf8) == url)
            #expect(JSONValue.parse(Array(run.standardOutput.utf8))?["providerId"]?.stringValue == "google.com")
        }
    }

    @Test("a request to /__/auth/done without this run's eventId neither redeems nor ends the run")
    func donePageIgnoresStrangers() async throws {
        try await withOnce { harness in
            let run = try harness.google()
            defer { run.terminateIfRunning() }
            let url = try await OnceHarness.signInURL(run)
            let redirect = try #require(
                URLComponents(string: url)?.queryItems?.first { $0.name == "redirect_uri" }?.value)
            let done = redirect.replacingOccurrences(of: "/__/auth/handler", with: "/__/auth/done")
            let stranger = try await harness.follow(done + "?error=user-cancelled&eventId=guess")
            #expect(stranger.response.status == 400)
            let (page, _) = try await harness.follow(url)
            #expect(page.status == 200)
            #expect(await run.exitCode() == 0, "\(run.standardError)")
        }
    }
}
