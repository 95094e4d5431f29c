import AuthHandlerCore
import AuthHandlerHTTP
import AuthHandlerProtocols
import AuthHandlerSystem
import FakeIdP
import Foundation

/// `auth-handler demo [--headless]`: a newcomer's first run. Starts the fake IdP and the handler in this
/// process and signs in for real — OIDC (`google.com` pointed at the fake IdP) and OAuth 1.0a (`twitter.com`
/// likewise) — through the same HTTP requests a browser and an app would make, then redeems the results
/// through the fake Identity Toolkit backend; then the daemon's own accounts (`DemoAccounts`).
enum DemoCommand {
    /// The demo app's own redirect URL; the handler allows it and the demo reads the code off it.
    static let appRedirectURL = "http://127.0.0.1/demo/signed-in"

    static func run(_ options: DemoOptions, context: CommandContext) async -> AuthHandlerExitCode {
        let idp: FakeIdP
        do {
            idp = try FakeIdP.start()
        } catch {
            return context.fail(.config, "cannot start the fake IdP on 127.0.0.1: \(error)")
        }
        defer { Task { await idp.stop() } }
        context.output.line("fake IdP:     \(idp.baseURL)")

        let environment = SecretEnvironment(variables: [
            "DEMO_TWITTER_SECRET": "fake-consumer-secret", "DEMO_GOOGLE_SECRET": "fake-client-secret",
            "DEMO_API_KEY": "demo-api-key",
        ])
        let report = ConfigLoader(environment: environment).load(
            data: Data(configJSON(idp: idp.baseURL).utf8), baseDirectory: FileManager.default.currentDirectoryPath)
        guard let config = report.config else {
            let problems = report.errors.map { "\($0.path): \($0.message)" }.joined(separator: "; ")
            return context.fail(.config, "the demo's own config is invalid (a bug): \(problems)")
        }
        let log = EventLog(sink: DemoLogSink(output: context.output))
        let running: RunningService
        do {
            running = try await RunningService.start(
                config: config, environment: environment, log: log, defaultStore: .memory)
        } catch {
            return context.fail(error.exitCode, error.message)
        }
        context.output.line("auth-handler: \(running.baseURL)")
        defer { Task { await running.stop() } }

        let browser: HTTPClient
        do {
            browser = try HTTPClient()
        } catch {
            return context.fail(.config, "cannot start the HTTP client: \(error)")
        }
        for (provider, hint) in [("google.com", "login_hint"), ("twitter.com", "screen_name")] {
            do {
                let summary = try await signIn(
                    provider: provider, hintParameter: hint, handler: running.baseURL, browser: browser)
                context.output.line(summary)
            } catch {
                return context.fail(.providerError, "demo sign-in with \(provider) failed: \(error)")
            }
        }
        context.output.line("demo: two real sign-ins completed against the fake IdP")
        do {
            return try await DemoAccounts.run(
                idp: idp.baseURL, browser: browser, environment: environment, log: log, samplePage: !options.headless,
                say: { context.output.line($0) }
            ) { samplePage in
                context.output.line("demo: the accounts backend signed up, verified, linked, refreshed and signed out")
                guard let samplePage else { return .success }
                return await serveByHand(
                    handler: running.baseURL, samplePage: samplePage, browser: browser, context: context)
            }
        } catch {
            return context.fail(.providerError, "demo of the accounts backend failed: \(error)")
        }
    }

    /// Without `--headless`: serves the demo app's redirect page and waits for sign-ins made in a real browser, on the
    /// first handler's start links and on the accounts daemon's sample page (`samplePage`), until SIGINT or SIGTERM.
    static func serveByHand(handler: String, samplePage: String, browser: HTTPClient, context: CommandContext) async
        -> AuthHandlerExitCode
    {
        let signals = TerminationSignals()
        // The app keeps one verifier per sign-in it starts (by eventId) and proves it when it redeems
        // (HTTP-API.md §3.3).
        var verifiers: [String: String] = [:]
        for provider in ["google.com", "twitter.com"] {
            do {
                verifiers["demo-\(provider)"] = try PKCE.makeVerifier()
            } catch {
                return context.fail(.config, "the random generator failed: \(error)")
            }
        }
        let app: HTTPServer
        do {
            app = try HTTPServer(listeningOn: ["127.0.0.1:0"]) { [verifiers] request in
                guard let code = request.queryItems.first(named: "code") else {
                    let error = request.queryItems.first(named: "error") ?? "no code"
                    return .html("<!doctype html><p>Sign-in failed: \(ResponseRendering.htmlEscape(error))</p>")
                }
                let verifier = request.queryItems.first(named: "eventId").flatMap { verifiers[$0] } ?? ""
                let redemption = try? await browser.send(
                    redemptionRequest(handler: handler, code: code, verifier: verifier))
                let text = redemption.map { String(decoding: $0.body, as: UTF8.self) } ?? "redemption failed"
                return .html(
                    "<!doctype html><h1>Signed in</h1><p>The demo app redeemed its result code:</p><pre>"
                        + ResponseRendering.htmlEscape(text) + "</pre>")
            }
        } catch {
            return context.fail(.config, "cannot start the demo app page: \(error)")
        }
        let redirect = "http://\(app.addresses[0])/demo/signed-in"
        for provider in ["google.com", "twitter.com"] {
            let eventID = "demo-\(provider)"
            let challenge = (try? PKCE.challenge(forVerifier: verifiers[eventID] ?? "")) ?? ""
            let url = startURL(
                handler: handler, provider: provider, redirect: redirect, eventID: eventID, challenge: challenge)
            context.output.line("sign in by hand with \(provider) (users alice, bob, conflict, mfa, deny): \(url)")
        }
        context.output.line("sample page:  \(samplePage)")
        context.output.line(
            "  open it in a browser: sign up or in with an e-mail and password, or with Google (the fake IdP's alice or"
                + " bob); see currentUser(), onAuthStateChanged, an ID token, and sign out")
        context.output.line("press Ctrl-C to stop")
        _ = await signals.next()
        await app.stop(gracePeriod: .seconds(1))
        return .success
    }

    /// Walks one sign-in as a browser would, then redeems it as an app would; returns a summary line.
    static func signIn(provider: String, hintParameter: String, handler: String, browser: HTTPClient) async throws
        -> String
    {
        let eventID = "demo-\(provider)"
        let redemption = try await redeemedSignIn(
            provider: provider, hintParameter: hintParameter, handler: handler, browser: browser
        ).response
        guard redemption.status == 200, let result = JSONValue.parse(redemption.body) else {
            throw DemoError("redemption answered HTTP \(redemption.status)")
        }
        let profile = result["profile"]
        let signIn = result["signIn"]
        return
            "signed in:    \(provider) user \(profile?["id"]?.stringValue ?? "?") "
            + "(\(profile?["displayName"]?.stringValue ?? "?"), \(profile?["email"]?.stringValue ?? "no e-mail")); "
            + "backend localId \(signIn?["localId"]?.stringValue ?? "?"), "
            + "isNewUser \(signIn?["isNewUser"]?.boolValue.map(String.init) ?? "?"), eventId \(eventID)"
    }

    /// Walks one sign-in of the fake IdP's alice as a browser would (the handler's cookie carried from the start to the
    /// callback), then redeems its result code as an app would: the redemption's answer, and the verifier it proved.
    static func redeemedSignIn(
        provider: String, hintParameter: String, handler: String, browser: HTTPClient, user: String = "alice"
    ) async throws -> (response: OutboundResponse, verifier: String) {
        let custom = "{\"\(hintParameter)\":\"\(user)\"}"
        let eventID = "demo-\(provider)"
        // The app's proof for redemption: it keeps the verifier and sends only its SHA-256 (HTTP-API.md §3.3).
        let verifier = try PKCE.makeVerifier()
        var url = startURL(
            handler: handler, provider: provider, redirect: appRedirectURL, eventID: eventID,
            challenge: try PKCE.challenge(forVerifier: verifier), customParameters: custom)
        // handler → IdP (302) → handler callback (302 from the auto-approving IdP) → app (303).
        var hops = 0
        var cookies: [String: String] = [:]
        while !url.hasPrefix(appRedirectURL) {
            hops += 1
            guard hops <= 5 else { throw DemoError("too many redirects") }
            var headers = HTTPHeaders()
            if url.hasPrefix(handler), !cookies.isEmpty {
                headers.set(name: "Cookie", value: cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; "))
            }
            let response = try await browser.send(OutboundRequest(method: "GET", url: url, headers: headers))
            if url.hasPrefix(handler) {
                for setCookie in response.headers.values(for: "Set-Cookie") {
                    let pair = setCookie.split(separator: ";", maxSplits: 1).first ?? ""
                    guard let equals = pair.firstIndex(of: "=") else { continue }
                    let value = String(pair[pair.index(after: equals)...])
                    cookies[String(pair[..<equals])] = value.isEmpty ? nil : value
                }
            }
            guard (300..<400).contains(response.status), let location = response.headers["Location"] else {
                throw DemoError("expected a redirect from \(url.prefix(60))…, got HTTP \(response.status)")
            }
            url = location
        }
        let query = url.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
        let back = try FormURLEncoding.decode(query)
        if let error = back.first(named: "error") {
            throw DemoError("\(error): \(back.first(named: "error_description") ?? "")")
        }
        guard let code = back.first(named: "code") else { throw DemoError("no result code in the redirect") }
        let response = try await browser.send(redemptionRequest(handler: handler, code: code, verifier: verifier))
        return (response, verifier)
    }

    /// The app's link that starts a sign-in (HTTP-API.md §3.1).
    static func startURL(
        handler: String, provider: String, redirect: String, eventID: String, challenge: String,
        customParameters: String? = nil
    ) -> String {
        var fields = [
            URLFormField(name: "providerId", value: provider), URLFormField(name: "redirectUrl", value: redirect),
            URLFormField(name: "eventId", value: eventID), URLFormField(name: "resultChallenge", value: challenge),
        ]
        if let customParameters { fields.append(URLFormField(name: "customParameters", value: customParameters)) }
        return "\(handler)/__/auth/handler?" + FormURLEncoding.encode(fields)
    }

    /// The app's `POST /__/auth/result` with its result code and verifier (HTTP-API.md §3.3).
    static func redemptionRequest(handler: String, code: String, verifier: String) -> OutboundRequest {
        OutboundRequest(
            method: "POST", url: "\(handler)/__/auth/result",
            headers: ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"],
            body: Array(
                FormURLEncoding.encode([
                    URLFormField(name: "code", value: code), URLFormField(name: "verifier", value: verifier),
                ]).utf8))
    }

    static func configJSON(idp: String) -> String {
        """
        {
          "listen": ["127.0.0.1:0"],
          "store": {"kind": "memory"},
          "allowedRedirectURLs": ["\(appRedirectURL)"],
          "backend": {"kind": "identitytoolkit", "url": "\(idp)/identitytoolkit/v1", "apiKey": {"env": "DEMO_API_KEY"}},
          "providers": {
            "google.com": {"clientId": "fake-client-id", "clientSecret": {"env": "DEMO_GOOGLE_SECRET"},
                           "issuer": "\(idp)/oidc"},
            "twitter.com": {"consumerKey": "fake-consumer-key", "consumerSecret": {"env": "DEMO_TWITTER_SECRET"},
                            "endpoints": {"requestToken": "\(idp)/oauth1/request_token",
                                          "authorize": "\(idp)/oauth1/authenticate",
                                          "accessToken": "\(idp)/oauth1/access_token",
                                          "profile": "\(idp)/oauth1/account/verify_credentials.json?include_email=true"}}
          }
        }
        """
    }
}

/// A demo step that did not go as expected.
struct DemoError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Shows the handler's own log lines, indented, so the newcomer sees each sign-in step.
struct DemoLogSink: LogSink {
    let output: CommandOutput
    func write(_ line: String) { output.line("  log: \(line)") }
}
