import AuthHandlerCore
import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerProtocols
import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Several real `auth-handler serve` instances sharing one real `redis-server` (docs/OPERATIONS.md "Run several instances"): the
/// same config file for all (so the same `stateKey`, provider secrets and `publicURL`), one fake IdP, and optionally
/// a real `nginx` in front, round robin. Every server is on 127.0.0.1 (a free port or a Unix socket), started and
/// stopped by the test, and awaited until ready.
final class ScaleOut: Sendable {
    let directory: URL
    let idp: TestProcess
    let idpURL: String
    let redis: RedisTestServer
    let instances: [ScaleOutInstance]
    /// Every instance's `publicURL`: nginx's URL, or (without nginx) a free port nothing listens on, which the test's
    /// browsers route to an instance of their choosing (`ScaleOutBrowser.route`).
    let frontURL: String
    let nginx: ScaleOutNginx?
    /// One HTTP client for every browser (each browser keeps its own cookies).
    let client: HTTPClient

    private init(
        directory: URL, idp: TestProcess, idpURL: String, redis: RedisTestServer, instances: [ScaleOutInstance],
        frontURL: String, nginx: ScaleOutNginx?, client: HTTPClient
    ) {
        self.directory = directory
        self.idp = idp
        self.idpURL = idpURL
        self.redis = redis
        self.instances = instances
        self.frontURL = frontURL
        self.nginx = nginx
        self.client = client
    }

    /// Starts Redis, the fake IdP, `count` instances and (with `behindNginx`) nginx in front of them; the instances'
    /// `store.commandTimeoutSeconds` is `commandTimeoutSeconds` when given.
    static func start(
        count: Int = 2, behindNginx: Bool = false, commandTimeoutSeconds: Int? = nil, backend: EndToEnd.Backend = .none
    ) async throws -> ScaleOut {
        let directory = URL(fileURLWithPath: "/tmp").appendingPathComponent("e2e-scale-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var started: [@Sendable () async -> Void] = []
        do {
            let redis = RedisTestServer(directory: directory)
            try await redis.start()
            started.append { await redis.stop() }
            let (idp, idpURL) = try await EndToEnd.startFakeIdP()
            started.append { await idp.stop() }
            for (name, value) in [("twitter-secret", "fake-consumer-secret"), ("client-secret", "fake-client-secret")] {
                try Data(value.utf8).write(to: directory.appendingPathComponent(name))
            }
            try Data((Base64.urlEncode(try SecureRandom.bytes(32)) + "\n").utf8)
                .write(to: directory.appendingPathComponent("state-key"))
            // The accounts on PostgreSQL: one database (which keeps the signing key) for every instance.
            if case .accounts(_, .postgres) = backend {
                try await AccountsDatabaseEngine.preparePostgres(in: directory)
            }
            // nginx's port must be in every instance's publicURL before nginx knows the instances' ports: choose a free
            // port, start the instances, then nginx; should the port have been taken meanwhile, do it all again.
            for _ in 0..<5 {
                let frontURL = "http://127.0.0.1:\(try freeLoopbackPort())"
                let instances = try await startInstances(
                    count: count, idpURL: idpURL, frontURL: frontURL, redis: redis, directory: directory,
                    commandTimeoutSeconds: commandTimeoutSeconds, backend: backend)
                guard behindNginx else {
                    return ScaleOut(
                        directory: directory, idp: idp, idpURL: idpURL, redis: redis, instances: instances,
                        frontURL: frontURL, nginx: nil, client: try HTTPClient())
                }
                do {
                    let nginx = try await ScaleOutNginx.start(
                        frontURL: frontURL, upstreams: instances.map(\.url), directory: directory)
                    return ScaleOut(
                        directory: directory, idp: idp, idpURL: idpURL, redis: redis, instances: instances,
                        frontURL: frontURL, nginx: nginx, client: try HTTPClient())
                } catch is ScaleOutNginx.PortTaken {
                    for instance in instances { await instance.process.stop() }
                }
            }
            throw TestProcessError("nginx found its port taken five times in a row")
        } catch {
            for stop in started.reversed() { await stop() }
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    private static func startInstances(
        count: Int, idpURL: String, frontURL: String, redis: RedisTestServer, directory: URL,
        commandTimeoutSeconds: Int?, backend: EndToEnd.Backend
    ) async throws -> [ScaleOutInstance] {
        let configPath = directory.appendingPathComponent("config.json")
        let timeout = commandTimeoutSeconds.map { ", \"commandTimeoutSeconds\": \($0)" } ?? ""
        let settings = [
            "store": "{\"kind\": \"redis\", \"url\": \"unix:\(redis.socketPath)\"\(timeout)}",
            "stateKey": "{\"file\": \"\(directory.appendingPathComponent("state-key").path)\"}",
            "publicURL": "\"\(frontURL)\"",
            // Every browser here is 127.0.0.1 (nginx, or the test itself): a per-client start limit would refuse the
            // concurrent OAuth 1.0a starts and the first wave's OIDC discovery, which is not what these tests look at.
            "startRateLimit": #"{"perMinute": 100000, "burst": 100000}"#,
            "trustedProxies": #"["127.0.0.1"]"#,
            // Device sign-ins poll one instance while the browser uses another (EndToEndDeviceScaleOutTests).
            "deviceAuthorization": #"{"enabled": true, "intervalSeconds": 1}"#,
        ]
        try Data(try EndToEnd.config(idp: idpURL, directory: directory, backend: backend, settings: settings).utf8)
            .write(to: configPath)
        var instances: [ScaleOutInstance] = []
        for index in 0..<count {
            let process = try TestProcess(authHandler: ["serve", "--config", configPath.path])
            guard let url = await process.waitForLine(startingWith: "auth-handler listening on ") else {
                process.terminateIfRunning()
                for instance in instances { await instance.process.stop() }
                throw TestProcessError("instance \(index) did not start: \(process.standardError)")
            }
            instances.append(ScaleOutInstance(process: process, url: url))
        }
        return instances
    }

    /// Stops everything it started (SIGTERM for the instances and the IdP, SIGKILL for nginx and Redis) and removes
    /// the directory.
    func stop() async {
        await nginx?.stop()
        for instance in instances { await instance.process.stop() }
        await idp.stop()
        await redis.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// A new browser with no cookies.
    func browser() -> ScaleOutBrowser {
        ScaleOutBrowser(client: client, frontURL: frontURL, idpURL: idpURL)
    }

    /// `GET /readyz` of every instance, in order.
    func readiness() async throws -> [Int] {
        var statuses: [Int] = []
        for instance in instances {
            statuses.append(try await client.send(OutboundRequest(method: "GET", url: instance.url + "/readyz")).status)
        }
        return statuses
    }
}

/// Runs `body` with a started cluster, always stopping it.
func withScaleOut<T>(
    count: Int = 2, behindNginx: Bool = false, commandTimeoutSeconds: Int? = nil, _ body: (ScaleOut) async throws -> T
) async throws -> T {
    let cluster = try await ScaleOut.start(
        count: count, behindNginx: behindNginx, commandTimeoutSeconds: commandTimeoutSeconds)
    return try await withCleanup({ await cluster.stop() }) { try await body(cluster) }
}

/// One `auth-handler serve` of a cluster and the URL it listens on.
struct ScaleOutInstance: Sendable {
    let process: TestProcess
    let url: String

    /// `kill -9`, and waits until it is gone.
    func kill9() async {
        process.send(SIGKILL)
        _ = await process.exitCode()
    }
}

/// A browser of its own: its own cookies (by name, for every origin on 127.0.0.1 but the IdP's, as a real browser's
/// jar is not bound to a port), so concurrent sign-ins each have one. A URL at `frontURL` is sent to `origin` instead
/// when the caller names one, which is how a test chooses the instance behind the shared `publicURL`.
final class ScaleOutBrowser: Sendable {
    let client: HTTPClient
    let frontURL: String
    let idpURL: String
    let jar = CookieJar()

    init(client: HTTPClient, frontURL: String, idpURL: String) {
        self.client = client
        self.frontURL = frontURL
        self.idpURL = idpURL
    }

    /// The IdP's callback to the handler: a URL for a redirect, and the form for `form_post`.
    struct Callback: Sendable {
        var url: String
        var form: [URLFormField]?

        /// The value of `state` (OAuth 2) or `oauth_token` / `oauth_verifier` (OAuth 1.0a) it carries.
        func field(_ name: String) -> String? {
            if let form { return form.first(named: name) }
            let query = String(url.split(separator: "?", maxSplits: 1).dropFirst().first ?? "")
            return (try? FormURLEncoding.decode(query))?.first(named: name)
        }
    }

    /// `url` with the `frontURL` origin replaced by `origin` (nil: unchanged).
    func routed(_ url: String, to origin: String?) -> String {
        guard let origin, url.hasPrefix(frontURL) else { return url }
        return origin + url.dropFirst(frontURL.count)
    }

    /// Sends `request` as this browser: its cookies to any handler, Set-Cookie from any handler into the jar.
    func send(_ request: OutboundRequest) async throws -> OutboundResponse {
        var request = request
        let toHandler = !request.url.hasPrefix(idpURL)
        if toHandler, let cookie = cookieHeader() { request.headers.set(name: "Cookie", value: cookie) }
        let response = try await client.send(request)
        if toHandler {
            for setCookie in response.headers.values(for: "Set-Cookie") { jar.store(setCookie: setCookie) }
        }
        return response
    }

    func get(_ url: String, accept: String? = nil) async throws -> OutboundResponse {
        var headers = HTTPHeaders()
        if let accept { headers.set(name: "Accept", value: accept) }
        return try await send(OutboundRequest(method: "GET", url: url, headers: headers))
    }

    func postForm(_ url: String, _ fields: [URLFormField], accept: String? = nil) async throws -> OutboundResponse {
        var headers: HTTPHeaders = ["Content-Type": "application/x-www-form-urlencoded"]
        if let accept { headers.set(name: "Accept", value: accept) }
        return try await send(
            OutboundRequest(
                method: "POST", url: url, headers: headers, body: Array(FormURLEncoding.encode(fields).utf8)))
    }

    func cookieHeader() -> String? { jar.header() }

    /// Starts a sign-in at `origin` (default: `frontURL`) as `user`, auto-approved at the fake IdP, and follows the
    /// browser to the IdP's callback, which it does not deliver.
    func start(
        _ provider: String, user: String = "alice", eventID: String = "e", at origin: String? = nil
    ) async throws -> Callback {
        let hint = provider == "twitter.com" ? "screen_name" : "login_hint"
        let fields = [
            URLFormField(name: "providerId", value: provider),
            URLFormField(name: "redirectUrl", value: EndToEnd.appRedirect),
            URLFormField(name: "customParameters", value: "{\"\(hint)\":\"\(user)\"}"),
            URLFormField(name: "resultChallenge", value: EndToEnd.appChallenge),
            URLFormField(name: "eventId", value: eventID),
        ]
        var url = (origin ?? frontURL) + "/__/auth/handler?" + FormURLEncoding.encode(fields)
        for _ in 0..<6 {
            let response = try await get(url, accept: url.hasPrefix(idpURL) ? nil : "application/json")
            if (300..<400).contains(response.status), let location = response.headers["Location"] {
                if location.hasPrefix(frontURL) { return Callback(url: location, form: nil) }
                url = location
            } else if response.status == 200, url.hasPrefix(idpURL), let form = EndToEnd.autoSubmitForm(response),
                form.action.hasPrefix(frontURL)
            {
                return Callback(url: form.action, form: form.fields)
            } else {
                throw TestProcessError("\(provider) start stopped at \(url): \(response.status) \(response.text)")
            }
        }
        throw TestProcessError("\(provider) start did not reach its callback")
    }

    /// Delivers `callback` to `origin` (default: where it points, `frontURL`).
    func deliver(_ callback: Callback, to origin: String? = nil, accept: String? = nil) async throws -> OutboundResponse
    {
        let url = routed(callback.url, to: origin)
        if let form = callback.form { return try await postForm(url, form, accept: accept) }
        return try await get(url, accept: accept)
    }

    /// The result code of a callback's `303` to the app, or nil.
    static func code(of response: OutboundResponse) -> String? {
        guard response.status == 303, let location = response.headers["Location"],
            location.hasPrefix(EndToEnd.appRedirect + "?")
        else { return nil }
        let query = String(location.split(separator: "?", maxSplits: 1).last ?? "")
        return (try? FormURLEncoding.decode(query))?.first(named: "code")
    }

    /// `POST /__/auth/result` at `origin` (default: `frontURL`) with the app's verifier.
    func redeem(_ code: String, at origin: String? = nil) async throws -> OutboundResponse {
        try await postForm(
            (origin ?? frontURL) + "/__/auth/result",
            [URLFormField(name: "code", value: code), URLFormField(name: "verifier", value: EndToEnd.appVerifier)],
            accept: "application/json")
    }

    /// Start at `start`, callback at `callback`, redemption at `redeem` (each nil: `frontURL`); the redemption.
    func signIn(
        _ provider: String, user: String = "alice", eventID: String = "e", start: String? = nil,
        callback: String? = nil, redeem: String? = nil
    ) async throws -> OutboundResponse {
        let pending = try await self.start(provider, user: user, eventID: eventID, at: start)
        let done = try await deliver(pending, to: callback, accept: "application/json")
        guard let code = Self.code(of: done) else {
            throw TestProcessError("\(provider) callback answered \(done.status) \(done.text)")
        }
        return try await self.redeem(code, at: redeem)
    }
}

/// The test's own `nginx` (`daemon off`, one process, everything in the cluster's directory) on `frontURL`'s port,
/// proxying round robin to `upstreams` with `X-Forwarded-For`, as docs/OPERATIONS.md "Run several instances" shows.
final class ScaleOutNginx: Sendable {
    static let executable = "/usr/sbin/nginx"

    /// nginx could not bind its port: someone took it between our choosing and its binding.
    struct PortTaken: Error {}

    let server: TestProcess

    private init(server: TestProcess) { self.server = server }

    static func configuration(port: Int, upstreams: [String], directory: String, readyToken: String) -> String {
        let servers = upstreams.map { "        server \($0.replacingOccurrences(of: "http://", with: ""));" }
        return """
            daemon off;
            # One process: SIGKILL then stops all of nginx (a worker would outlive a killed master).
            master_process off;
            worker_processes 1;
            pid \(directory)/nginx.pid;
            error_log \(directory)/nginx-error.log warn;
            events { worker_connections 1024; }
            http {
                access_log off;
                client_body_temp_path \(directory)/nginx-client-body;
                proxy_temp_path \(directory)/nginx-proxy;
                fastcgi_temp_path \(directory)/nginx-fastcgi;
                uwsgi_temp_path \(directory)/nginx-uwsgi;
                scgi_temp_path \(directory)/nginx-scgi;
                upstream auth_handler {
            \(servers.joined(separator: "\n"))
                }
                server {
                    listen 127.0.0.1:\(port);
                    # Readiness: only this nginx knows the token, so another program that took the port cannot pass.
                    location = /nginx-ready { return 200 "\(readyToken)"; }
                    location / {
                        proxy_pass http://auth_handler;
                        proxy_set_header Host $http_host;
                        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
                        proxy_set_header X-Forwarded-Proto $scheme;
                    }
                }
            }

            """
    }

    /// Starts nginx on `frontURL`'s port and returns once a request through it reaches an instance (`/healthz` 200);
    /// throws `PortTaken` when the port is in use.
    static func start(frontURL: String, upstreams: [String], directory: URL) async throws -> ScaleOutNginx {
        guard let port = frontURL.split(separator: ":").last.flatMap({ Int($0) }) else {
            throw TestProcessError("no port in \(frontURL)")
        }
        let config = directory.appendingPathComponent("nginx.conf")
        let readyToken = UUID().uuidString
        try Data(
            configuration(port: port, upstreams: upstreams, directory: directory.path, readyToken: readyToken).utf8
        ).write(to: config)
        let errorLog = directory.appendingPathComponent("nginx-error.log")
        try? FileManager.default.removeItem(at: errorLog)
        // -e: the error log before the config is read (else nginx tries /var/log/nginx/error.log first).
        let server = try TestProcess(
            executable, ["-c", config.path, "-p", directory.path + "/", "-e", errorLog.path], package: "nginx-light")
        let client = try HTTPClient()
        // nginx says nothing when it is ready: ask it, a bounded number of times, until it answers with its own token
        // (a program that took the port between our choosing and nginx's binding answers otherwise, or not at all)
        // and an instance answers through it.
        for _ in 0..<500 {
            if let ready = try? await client.send(OutboundRequest(method: "GET", url: frontURL + "/nginx-ready")),
                ready.status == 200, ready.text == readyToken, server.isRunning,
                let response = try? await client.send(OutboundRequest(method: "GET", url: frontURL + "/healthz")),
                response.status == 200
            {
                return ScaleOutNginx(server: server)
            }
            guard server.isRunning else { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        await server.kill()
        let log = (try? String(contentsOf: errorLog, encoding: .utf8)) ?? ""
        if log.contains("Address already in use") { throw PortTaken() }
        throw TestProcessError(
            "nginx did not come up on \(frontURL):\n\(server.standardOutput)\(server.standardError)\n\(log)")
    }

    func stop() async { await server.kill() }
}
