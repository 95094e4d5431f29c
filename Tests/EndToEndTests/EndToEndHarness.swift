import AuthHandlerCore
import AuthHandlerHTTP
import AuthHandlerProtocols
import AuthHandlerStore
import Foundation
import Synchronization
import TestSupport
import Testing

/// A real `auth-handler fake-idp` and a real `auth-handler serve` against it, both on 127.0.0.1:0, and a
/// browser made of the project's HTTP client (it follows nothing by itself; each hop is explicit).
final class EndToEnd: Sendable {
    /// The app's redirect URL, allowed in every daemon's config.
    static let appRedirect = "https://app.example.com/signed-in"
    /// A native app's redirect URL, with its custom scheme (HTTP-API.md §2.7), also allowed in every daemon's config.
    static let appSchemeRedirect = "com.example.app:/auth"
    /// The app's redemption verifier; every start carries its challenge unless a test says otherwise.
    static let appVerifier = "e2e-app-verifier-0123456789-abcdefghijklmnopqrstuvwxyz"
    static var appChallenge: String { (try? PKCE.challenge(forVerifier: appVerifier)) ?? "" }

    let directory: URL
    let idp: TestProcess
    let idpURL: String
    let daemon: TestProcess
    let daemonURL: String
    let browser: HTTPClient
    /// The browser's cookies for the daemon (name → value), as Set-Cookie left them.
    let cookieJar = CookieJar()

    /// Which sign-in backend the daemon hands credentials to.
    enum Backend {
        case none
        case identityToolkit
        case webhook(url: String, secret: String)
        /// The daemon's own accounts (HTTP-API.md §3.10) on `engine`: `accounts.sqlite` in the test's directory, or a
        /// fresh database of the test process's PostgreSQL server; `members` are more members of the backend object
        /// (e.g. `"email": {...}`), as JSON text without the braces.
        case accounts(members: String = "", engine: AccountsDatabaseEngine = AccountsDatabaseEngine.current)

        var isAccounts: Bool {
            if case .accounts = self { return true }
            return false
        }
    }

    /// The settings for `backend`: the accounts need a `publicURL` (their issuer and links), so they listen on a
    /// free port chosen first, and `publicURL` names it.
    static func placed(_ settings: [String: String], for backend: Backend) throws -> [String: String] {
        guard backend.isAccounts, settings["publicURL"] == nil else { return settings }
        let port = try freeLoopbackPort()
        var placed = settings
        placed["listen"] = placed["listen"] ?? "[\"127.0.0.1:\(port)\"]"
        placed["publicURL"] = "\"http://127.0.0.1:\(port)\""
        return placed
    }

    private init(
        directory: URL, idp: TestProcess, idpURL: String, daemon: TestProcess, daemonURL: String,
        browser: HTTPClient
    ) {
        self.directory = directory
        self.idp = idp
        self.idpURL = idpURL
        self.daemon = daemon
        self.daemonURL = daemonURL
        self.browser = browser
    }

    /// Starts both processes; `settings` adds or replaces top-level config keys (e.g. `sessionTTLSeconds`).
    /// `environment` is added to the daemon's; `launcher` runs it through another program (see `TestProcess`),
    /// and `activate` runs once it is spawned, before its "listening" line is awaited.
    static func start(
        backend: Backend = .none, settings: [String: String] = [:], environment: [String: String] = [:],
        launcher: [String] = [], activate: (@Sendable () -> Void)? = nil
    ) async throws -> EndToEnd {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let (idp, idpURL) = try await startFakeIdP()
        for (name, value) in [
            ("twitter-secret", "fake-consumer-secret"), ("client-secret", "fake-client-secret"),
            ("api-key", "e2e-api-key"),
        ] {
            try Data(value.utf8).write(to: directory.appendingPathComponent(name))
        }
        if case .webhook(_, let secret) = backend {
            try Data(secret.utf8).write(to: directory.appendingPathComponent("webhook-secret"))
        }
        if case .accounts(_, .postgres) = backend { try await AccountsDatabaseEngine.preparePostgres(in: directory) }
        let configPath = directory.appendingPathComponent("config.json")
        var attempt = 1
        while true {
            let placedSettings = try placed(settings, for: backend)
            try Data(try config(idp: idpURL, directory: directory, backend: backend, settings: placedSettings).utf8)
                .write(to: configPath)
            let daemon = try TestProcess(
                authHandler: ["serve", "--config", configPath.path], environment: environment, launcher: launcher)
            activate?()
            guard let daemonURL = await daemon.waitForLine(startingWith: "auth-handler listening on ") else {
                daemon.terminateIfRunning()
                // A port `placed` chose free may have been taken by a parallel test's server meanwhile: another.
                let taken = daemon.standardError.contains("Address already in use")
                if taken, placedSettings != settings, attempt < 3 {
                    attempt += 1
                    continue
                }
                idp.terminateIfRunning()
                try? FileManager.default.removeItem(at: directory)
                throw TestProcessError("auth-handler serve did not start: \(daemon.standardError)")
            }
            return EndToEnd(
                directory: directory, idp: idp, idpURL: idpURL, daemon: daemon, daemonURL: daemonURL,
                browser: try HTTPClient())
        }
    }

    /// Stops this daemon (SIGTERM, or SIGKILL with `kill`) and starts another on the same directory (store, state
    /// key, secrets) and fake IdP, with `settings`; the browser keeps its cookies. Returns the new pair; stop that one.
    func restartingDaemon(
        backend: Backend = .none, settings: [String: String] = [:], kill: Bool = false
    ) async throws -> EndToEnd {
        if kill {
            daemon.send(SIGKILL)
            _ = await daemon.exitCode()
        } else {
            await daemon.stop()
        }
        let configPath = directory.appendingPathComponent("config.json")
        var settings = settings
        if backend.isAccounts, settings["publicURL"] == nil, let address = daemonURL.split(separator: "/").last {
            // The accounts keep their issuer and links: the same port again.
            settings["publicURL"] = "\"\(daemonURL)\""
            settings["listen"] = settings["listen"] ?? "[\"\(address)\"]"
        }
        try Data(try Self.config(idp: idpURL, directory: directory, backend: backend, settings: settings).utf8)
            .write(to: configPath)
        let next = try TestProcess(authHandler: ["serve", "--config", configPath.path])
        guard let nextURL = await next.waitForLine(startingWith: "auth-handler listening on ") else {
            next.terminateIfRunning()
            throw TestProcessError("auth-handler serve did not restart: \(next.standardError)")
        }
        let restarted = EndToEnd(
            directory: directory, idp: idp, idpURL: idpURL, daemon: next, daemonURL: nextURL, browser: browser)
        let cookies = cookieJar.withLock { $0 }
        restarted.cookieJar.withLock { $0 = cookies }
        return restarted
    }

    /// `auth-handler fake-idp` on 127.0.0.1:0, and its URL once it says it listens.
    static func startFakeIdP() async throws -> (process: TestProcess, url: String) {
        let idp = try TestProcess(authHandler: ["fake-idp", "--listen", "127.0.0.1:0"])
        guard let idpURL = await idp.waitForLine(startingWith: "fake-idp listening on ") else {
            idp.terminateIfRunning()
            throw TestProcessError("fake-idp did not start: \(idp.standardError)")
        }
        return (idp, idpURL)
    }

    /// Stops both processes (SIGTERM) and removes the temporary directory; returns the daemon's exit status.
    @discardableResult
    func stop() async -> Int32 {
        let status = await daemon.stop()
        await idp.stop()
        try? FileManager.default.removeItem(at: directory)
        return status
    }

    static func config(idp: String, directory: URL, backend: Backend, settings: [String: String]) throws -> String {
        let secret = { (name: String) in "{\"file\": \"\(directory.appendingPathComponent(name).path)\"}" }
        var settings = settings
        let backendJSON: String
        switch backend {
        case .none:
            backendJSON = #"{"kind": "none"}"#
        case .identityToolkit:
            backendJSON =
                "{\"kind\": \"identitytoolkit\", \"url\": \"\(idp)/identitytoolkit/v1\", \"apiKey\": \(secret("api-key"))}"
        case .webhook(let url, _):
            backendJSON = "{\"kind\": \"webhook\", \"url\": \"\(url)\", \"secret\": \(secret("webhook-secret"))}"
        case .accounts(let members, .sqlite):
            let database = directory.appendingPathComponent("accounts.sqlite").path
            backendJSON =
                "{\"kind\": \"accounts\", \"database\": {\"kind\": \"sqlite\", \"path\": \"\(database)\"}"
                + (members.isEmpty ? "" : ", " + members) + "}"
        case .accounts(let members, .postgres):
            let postgres = try AccountsDatabaseEngine.postgresDatabase(in: directory)
            // Without `stateKey` and `signingKey` the database keeps both for every instance on it (docs/ACCOUNTS.md
            // "Keys the database keeps"): every test on PostgreSQL runs so, unless its settings name a state key.
            backendJSON =
                "{\"kind\": \"accounts\", \"database\": {\"kind\": \"postgres\", \"url\": \"\(postgres.url)\", "
                + "\"password\": \(secret("postgres-password")), "
                + "\"statementTimeoutMs\": \(postgres.timeoutMilliseconds)}"
                + (members.isEmpty ? "" : ", " + members) + "}"
        }
        // The fake's verify_credentials answers `email` without `email_verified`, as Twitter does.
        let oauth1Endpoints = """
            {"requestToken": "\(idp)/oauth1/request_token", "authorize": "\(idp)/oauth1/authenticate",
             "accessToken": "\(idp)/oauth1/access_token",
             "profile": "\(idp)/oauth1/account/verify_credentials.json?include_email=true"}
            """
        var topLevel: [String: String] = [
            "listen": #"["127.0.0.1:0"]"#,
            "store": "{\"kind\": \"sqlite\", \"path\": \"\(directory.appendingPathComponent("state.sqlite").path)\"}",
            "allowedRedirectURLs": "[\"\(appRedirect)\", \"http://127.0.0.1/done\", \"\(appSchemeRedirect)\"]",
            "providerTimeoutSeconds": "2",
            "backend": backendJSON,
            "providers": """
            {
              "twitter.com": {"consumerKey": "fake-consumer-key", "consumerSecret": \(secret("twitter-secret")),
                "endpoints": {"requestToken": "\(idp)/oauth1/request_token", "authorize": "\(idp)/oauth1/authenticate",
                              "accessToken": "\(idp)/oauth1/access_token",
                              "profile": "\(idp)/oauth1/account/verify_credentials.json?include_email=true"}},
              "google.com": {"clientId": "fake-client-id", "clientSecret": \(secret("client-secret")),
                "issuer": "\(idp)/oidc"},
              "github.com": {"clientId": "fake-client-id", "clientSecret": \(secret("client-secret")),
                "endpoints": {"authorization": "\(idp)/oidc/authorize", "token": "\(idp)/oidc/token",
                              "userInfo": "\(idp)/oidc/userinfo"}},
              "apple.com": {"clientId": "fake-client-id", "clientSecret": \(secret("client-secret")),
                "issuer": "\(idp)/oidc", "responseMode": "form_post"},
              "microsoft.com": {"clientId": "fake-client-id", "clientSecret": \(secret("client-secret")),
                "issuer": "\(idp)/oidc"},
              "oidc.public": {"protocol": "oidc", "clientId": "fake-public-client", "issuer": "\(idp)/oidc",
                "tokenEndpointAuth": "none"},
              "oauth1.plain": {"protocol": "oauth1", "consumerKey": "fake-consumer-key",
                "consumerSecret": \(secret("twitter-secret")), "endpoints": \(oauth1Endpoints)},
              "oauth1.trusted": {"protocol": "oauth1", "consumerKey": "fake-consumer-key",
                "consumerSecret": \(secret("twitter-secret")), "endpoints": \(oauth1Endpoints), "trustEmail": true}
            }
            """,
        ]
        topLevel.merge(settings) { _, new in new }
        return "{\n"
            + topLevel.sorted { $0.key < $1.key }.map { "  \"\($0.key)\": \($0.value)" }
            .joined(separator: ",\n") + "\n}\n"
    }

    // MARK: Browser

    /// The start URL for `provider` with the given extra query parameters; `resultChallenge` is the app's unless
    /// `parameters` gives one (an empty one leaves it out).
    func startURL(_ provider: String, _ parameters: [String: String] = [:], redirect: String = appRedirect) -> String {
        var fields = [
            URLFormField(name: "providerId", value: provider), URLFormField(name: "redirectUrl", value: redirect),
        ]
        var parameters = parameters
        if parameters["resultChallenge"] == nil { parameters["resultChallenge"] = Self.appChallenge }
        for (name, value) in parameters.sorted(by: { $0.key < $1.key })
        where !value.isEmpty || name != "resultChallenge" {
            fields.append(URLFormField(name: name, value: value))
        }
        return daemonURL + "/__/auth/handler?" + FormURLEncoding.encode(fields)
    }

    /// A GET as this browser (its cookies go to the daemon); `freshBrowser` sends it from one with no cookies.
    func get(_ url: String, accept: String? = nil, freshBrowser: Bool = false) async throws -> OutboundResponse {
        var headers = HTTPHeaders()
        if let accept { headers.set(name: "Accept", value: accept) }
        return try await send(OutboundRequest(method: "GET", url: url, headers: headers), freshBrowser: freshBrowser)
    }

    func postForm(
        _ url: String, _ fields: [URLFormField], accept: String? = "application/json", freshBrowser: Bool = false
    ) async throws -> OutboundResponse {
        var headers: HTTPHeaders = ["Content-Type": "application/x-www-form-urlencoded"]
        if let accept { headers.set(name: "Accept", value: accept) }
        return try await send(
            OutboundRequest(
                method: "POST", url: url, headers: headers, body: Array(FormURLEncoding.encode(fields).utf8)),
            freshBrowser: freshBrowser)
    }

    /// Sends as a browser would: the jar's cookies to the daemon, and the daemon's Set-Cookie back into the jar.
    func send(_ request: OutboundRequest, freshBrowser: Bool = false) async throws -> OutboundResponse {
        var request = request
        let toDaemon = request.url.hasPrefix(daemonURL)
        if toDaemon, !freshBrowser, let cookie = cookieHeader() { request.headers.set(name: "Cookie", value: cookie) }
        let response = try await browser.send(request)
        if toDaemon, !freshBrowser {
            for setCookie in response.headers.values(for: "Set-Cookie") { cookieJar.store(setCookie: setCookie) }
        }
        return response
    }

    /// The `Cookie` header this browser sends the daemon; nil with an empty jar.
    func cookieHeader() -> String? { cookieJar.header() }

    /// One step of a browser walk: every response the handler emitted on the way, and where it ended.
    struct Walk {
        /// Each response from the daemon (not the IdP), in order.
        var handlerResponses: [OutboundResponse] = []
        /// The IdP's callback to the handler (the URL, or the form fields of a form_post).
        var callbackURL: String?
        var callbackForm: [URLFormField]?
        /// The final redirect to the app, decoded.
        var appRedirect: String?
        var appQuery: [URLFormField] = []
    }

    /// Follows the browser from `url` until the handler sends it to the app (or something else stops it).
    /// `stopAtCallback` stops before delivering the IdP's callback to the handler, so a test can tamper or wait.
    func walk(from url: String, stopAtCallback: Bool = false) async throws -> Walk {
        var walk = Walk()
        var next: (url: String, form: [URLFormField]?) = (url, nil)
        for _ in 0..<8 {
            let response: OutboundResponse
            if let form = next.form {
                response = try await postForm(next.url, form, accept: nil)
            } else {
                response = try await get(next.url)
            }
            let fromHandler = next.url.hasPrefix(daemonURL)
            if fromHandler { walk.handlerResponses.append(response) }
            if (300..<400).contains(response.status), let location = response.headers["Location"] {
                if location.hasPrefix(Self.appRedirect) || location.hasPrefix("http://127.0.0.1/done")
                    || location.hasPrefix(Self.appSchemeRedirect)
                {
                    walk.appRedirect = location
                    let query = location.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
                    walk.appQuery = try FormURLEncoding.decode(query)
                    return walk
                }
                if location.hasPrefix(daemonURL) {
                    walk.callbackURL = location
                    if stopAtCallback { return walk }
                }
                next = (location, nil)
            } else if response.status == 200, !fromHandler, let form = Self.autoSubmitForm(response) {
                // response_mode=form_post: the IdP's page posts the response to the handler.
                walk.callbackURL = form.action
                walk.callbackForm = form.fields
                if stopAtCallback { return walk }
                next = (form.action, form.fields)
            } else {
                return walk
            }
        }
        return walk
    }

    /// Starts a sign-in as `user` (auto-approved by the fake IdP) and walks it to the app.
    func signIn(_ provider: String, user: String = "alice", _ parameters: [String: String] = [:]) async throws -> Walk {
        let hint = provider == "twitter.com" || provider.hasPrefix("oauth1.") ? "screen_name" : "login_hint"
        var parameters = parameters
        if parameters["customParameters"] == nil { parameters["customParameters"] = "{\"\(hint)\":\"\(user)\"}" }
        return try await walk(from: startURL(provider, parameters))
    }

    /// POST /__/auth/result.
    func redeem(code: String, verifier: String? = appVerifier, idToken: String? = nil) async throws -> OutboundResponse
    {
        var fields = [URLFormField(name: "code", value: code)]
        if let verifier { fields.append(URLFormField(name: "verifier", value: verifier)) }
        if let idToken { fields.append(URLFormField(name: "idToken", value: idToken)) }
        return try await postForm(daemonURL + "/__/auth/result", fields)
    }

    /// Queues a failure at the fake IdP through its control API.
    func queueFailure(_ json: String) async throws {
        let response = try await send(
            OutboundRequest(
                method: "POST", url: idpURL + "/__fake/failures", headers: ["Content-Type": "application/json"],
                body: Array(json.utf8)))
        #expect(response.status == 200, "queueing \(json) answered \(response.status)")
    }

    /// How many requests the fake IdP has received at `path` (`/oidc/token`, ...), from its request list
    /// (`GET /__fake/requests`, HTTP-API.md §4.4).
    func idpRequestCount(to path: String) async throws -> Int {
        let response = try await send(OutboundRequest(method: "GET", url: idpURL + "/__fake/requests"))
        let requests = try #require(response.json?.arrayValue, "the fake IdP's request list: \(response.text)")
        return requests.filter { $0["path"]?.stringValue == path }.count
    }

    /// Runs `body` (a call that ends at the fake IdP's `path`) concurrently, and returns once the IdP has received
    /// it, with the task that finishes it: e.g. a redemption the backend sits on for a queued `delay`.
    func whileIdPHolds<T: Sendable>(
        path: String, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> Task<T, any Error> {
        let before = try await idpRequestCount(to: path)
        let task = Task { try await body() }
        // The fake IdP's request list is the only signal that the call arrived; poll it briefly.
        var polls = 0
        while try await idpRequestCount(to: path) == before, polls < 200 {
            polls += 1
            try await Task.sleep(for: .milliseconds(5))
        }
        return task
    }

    /// The PKCE verifiers (token requests) and nonces (authorization requests) in the fake IdP's request list
    /// (`GET /__fake/requests`), to look for where they must not be; with how many of each were found.
    static func verifiersAndNonces(in requests: [JSONValue]) -> (values: Set<String>, verifiers: Int, nonces: Int) {
        var values: Set<String> = []
        var counts = ["code_verifier": 0, "nonce": 0]
        for request in requests {
            let text = String(describing: request)
            for name in counts.keys {
                guard let range = text.range(of: name + "=") else { continue }
                let value = text[range.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
                if value.count >= 32, values.insert(String(value)).inserted { counts[name, default: 0] += 1 }
            }
        }
        return (values, counts["code_verifier", default: 0], counts["nonce", default: 0])
    }

    /// The hidden fields and action of the fake IdP's auto-submitting form_post page.
    static func autoSubmitForm(_ response: OutboundResponse) -> (action: String, fields: [URLFormField])? {
        let html = String(decoding: response.body, as: UTF8.self)
        guard html.contains("document.forms[0].submit()"),
            let action = firstMatch(#"<form method="post" action="([^"]*)""#, in: html)
        else { return nil }
        var fields: [URLFormField] = []
        let pattern = #"<input type="hidden" name="([^"]*)" value="([^"]*)">"#
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return nil }
        for match in regex.matches(in: html, range: NSRange(html.startIndex..., in: html)) {
            guard let name = Range(match.range(at: 1), in: html), let value = Range(match.range(at: 2), in: html)
            else { continue }
            fields.append(URLFormField(name: unescape(String(html[name])), value: unescape(String(html[value]))))
        }
        return (unescape(action), fields)
    }

    static func firstMatch(_ pattern: String, in text: String) -> String? {
        guard let regex = try? NSRegularExpression(pattern: pattern),
            let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
            let range = Range(match.range(at: 1), in: text)
        else { return nil }
        return String(text[range])
    }

    static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}

/// Runs `body` with a started pair, always stopping it.
func withEndToEnd<T>(
    backend: EndToEnd.Backend = .none, settings: [String: String] = [:], environment: [String: String] = [:],
    launcher: [String] = [], _ body: (EndToEnd) async throws -> T
) async throws -> T {
    let e2e = try await EndToEnd.start(
        backend: backend, settings: settings, environment: environment, launcher: launcher)
    return try await withCleanup({ await e2e.stop() }) { try await body(e2e) }
}
