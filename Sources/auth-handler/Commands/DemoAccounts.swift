import AuthHandlerCore
import AuthHandlerCrypto
import AuthHandlerHTTP
import Foundation

/// The second half of `auth-handler demo`: the daemon's own accounts (backend `accounts`, docs/ACCOUNTS.md) on a
/// SQLite file and an outbox directory in a temporary directory, driven as an app and its user would: a password
/// sign-up, the address verified through the link mailed to the outbox, a Google sign-in of the same address answered
/// `409 account-exists-with-different-credential`, a password sign-in that links it, the ID token verified against
/// the daemon's JWKS, a refresh, and a sign-out after which the refresh token is refused.
struct DemoAccounts {
    static let email = "alice@example.com"
    static let password = "correct horse battery staple"

    let base: String
    let outbox: URL
    let browser: HTTPClient
    let say: (String) -> Void

    /// The demo's accounts config: `publicURL` on `port`, the database and the outbox in `directory`.
    static func configJSON(idp: String, port: Int, directory: URL) -> String {
        """
        {
          "listen": ["127.0.0.1:\(port)"],
          "publicURL": "http://127.0.0.1:\(port)",
          "store": {"kind": "memory"},
          "allowedRedirectURLs": ["\(DemoCommand.appRedirectURL)", "http://127.0.0.1:\(port)\(DemoSamplePage.path)",
                                  "http://127.0.0.1:\(port)/__/auth/popup"],
          "backend": {"kind": "accounts",
                      "database": {"kind": "sqlite", "path": "\(directory.appendingPathComponent("accounts.sqlite").path)"},
                      "email": {"from": "Demo App <no-reply@example.com>",
                                "outbox": "\(directory.appendingPathComponent("outbox").path)"}},
          "providers": {
            "google.com": {"clientId": "fake-client-id", "clientSecret": {"env": "DEMO_GOOGLE_SECRET"},
                           "issuer": "\(idp)/oidc"}
          }
        }
        """
    }

    /// Starts the accounts daemon beside the fake IdP at `idp` and runs the walk; then, while the daemon still runs,
    /// `then` with the sample page's URL when `samplePage` (served on the daemon's origin, ``DemoSamplePage``), else
    /// with nil; then stops it and removes its files. Answers what `then` answers.
    static func run<Outcome>(
        idp: String, browser: HTTPClient, environment: SecretEnvironment, log: EventLog, samplePage: Bool,
        say: @escaping (String) -> Void, then: (_ samplePageURL: String?) async -> Outcome
    ) async throws -> Outcome {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "auth-handler-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("outbox"), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: directory) }
        // `publicURL` names the port, so one is chosen first: bound, read, released.
        let probe = try HTTPServer(listeningOn: ["127.0.0.1:0"]) { _ in ServerResponse(status: 404) }
        let port = Int(probe.addresses[0].port)
        await probe.stop(gracePeriod: .zero)
        let report = ConfigLoader(environment: environment).load(
            data: Data(configJSON(idp: idp, port: port, directory: directory).utf8),
            baseDirectory: directory.path)
        guard let config = report.config else {
            let problems = report.errors.map { "\($0.path): \($0.message)" }.joined(separator: "; ")
            throw DemoError("the demo's accounts config is invalid (a bug): \(problems)")
        }
        let running: RunningService
        do {
            running = try await RunningService.start(
                config: config, environment: environment, log: log, defaultStore: .memory,
                extraRoutes: samplePage ? DemoSamplePage.routes : [:])
        } catch {
            throw DemoError(error.message)
        }
        say("accounts:     \(running.baseURL) (backend accounts: SQLite and an outbox in \(directory.path))")
        do {
            try await DemoAccounts(
                base: running.baseURL, outbox: directory.appendingPathComponent("outbox"), browser: browser, say: say
            ).walk()
        } catch {
            await running.stop()
            throw error
        }
        let outcome = await then(samplePage ? running.baseURL + DemoSamplePage.path : nil)
        await running.stop()
        return outcome
    }

    func walk() async throws {
        let signUp = try await json("/__/auth/password/sign-up", ["email": Self.email, "password": Self.password])
        let localID = signUp["localId"]?.stringValue ?? "?"
        say("accounts:     signed up \(Self.email) with a password: localId \(localID), e-mail not verified yet")
        try await verifyAddress(idToken: try Self.member(signUp, "idToken"))
        say("accounts:     verified the address through the link mailed to the outbox")

        let (redemption, verifier) = try await DemoCommand.redeemedSignIn(
            provider: "google.com", hintParameter: "login_hint", handler: base, browser: browser)
        guard redemption.status == 409, let error = JSONValue.parse(redemption.body)?["error"],
            error["code"]?.stringValue == "account-exists-with-different-credential",
            let pending = error["pendingCredential"]?.stringValue
        else { throw DemoError("the Google sign-in was not answered 409 account-exists: HTTP \(redemption.status)") }
        let methods = error["verifiedProviders"]?.arrayValue?.compactMap(\.stringValue).joined(separator: ", ") ?? "?"
        say(
            "accounts:     Google sign-in of the same address: 409 account-exists-with-different-credential (\(methods))"
        )

        let signIn = try await json("/__/auth/password/sign-in", ["email": Self.email, "password": Self.password])
        let idToken = try Self.member(signIn, "idToken")
        let linked = try await json(
            "/__/auth/user/link", ["pendingCredential": pending, "verifier": verifier], bearer: idToken)
        let providers = linked["providerUserInfo"]?.arrayValue?.compactMap { $0["providerId"]?.stringValue } ?? []
        guard providers.contains("google.com") else { throw DemoError("the link did not add google.com") }
        say("accounts:     signed in with the password and linked Google to the same account")

        let refreshed = try await refresh(try Self.member(signIn, "refreshToken"))
        guard refreshed.status == 200, let grant = JSONValue.parse(refreshed.body) else {
            throw DemoError("the refresh answered HTTP \(refreshed.status)")
        }
        say("accounts:     refreshed: a new ID token and the refresh token's one successor")
        let claims = try await verifyAgainstJWKS(try Self.member(grant, "id_token"))
        let identities = claims["firebase"]?["identities"]?.objectValue?.keys.sorted().joined(separator: ", ") ?? "none"
        say(
            "accounts:     ID token verified against /__/auth/jwks.json (ES256, iss, exp): sub "
                + "\(claims["sub"]?.stringValue ?? "?"), identities \(identities)")
        let successor = try Self.member(grant, "refresh_token")
        _ = try await json("/__/auth/sign-out", ["refreshToken": successor])
        let after = try await refresh(successor)
        guard after.status == 400 else { throw DemoError("a refresh after sign-out answered HTTP \(after.status)") }
        say("accounts:     signed out: the session's refresh token is refused (invalid_grant)")
    }

    /// `POST /__/auth/user/verify-email`, then the link from the outbox's mail: its page (GET), then its form (POST).
    private func verifyAddress(idToken: String) async throws {
        let sent = try await json("/__/auth/user/verify-email", [:], bearer: idToken, emptyBody: true)
        guard sent["sent"]?.boolValue == true else { throw DemoError("no verification mail was sent") }
        let link = try await mailedLink()
        let page = try await browser.send(OutboundRequest(method: "GET", url: link))
        guard page.status == 200 else { throw DemoError("the verification page answered HTTP \(page.status)") }
        let query = link.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
        let fields = try FormURLEncoding.decode(query).filter { ["mode", "oobCode"].contains($0.name) }
        let posted = try await browser.send(
            OutboundRequest(
                method: "POST", url: base + "/__/auth/action",
                headers: [
                    "Content-Type": "application/x-www-form-urlencoded", "Sec-Fetch-Site": "same-origin",
                    "Accept": "text/html",
                ], body: Array(FormURLEncoding.encode(fields).utf8)))
        guard posted.status == 200 else { throw DemoError("the verification form answered HTTP \(posted.status)") }
    }

    /// The action link of the first `.eml` in the outbox, waiting for the mail queue to write it (at most 10 s).
    private func mailedLink() async throws -> String {
        for _ in 0..<200 {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: outbox.path)) ?? []
            if let file = files.sorted().first(where: { $0.hasSuffix(".eml") }),
                let raw = try? String(contentsOf: outbox.appendingPathComponent(file), encoding: .utf8),
                case let text = Self.quotedPrintableDecoded(raw),
                let range = text.range(of: base + "/__/auth/action?")
            {
                let link = text[range.lowerBound...].prefix { !$0.isWhitespace }
                return String(link)
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw DemoError("no mail reached the outbox \(outbox.path)")
    }

    /// A quoted-printable body (RFC 2045 §6.7, as the daemon writes mail) decoded: soft line breaks joined, `=XX`
    /// turned back into its byte.
    static func quotedPrintableDecoded(_ text: String) -> String {
        let joined = text.replacingOccurrences(of: "=\r\n", with: "").replacingOccurrences(of: "=\n", with: "")
        var bytes: [UInt8] = []
        var utf8 = Array(joined.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "="), utf8.count >= 2,
                let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Checks the token's ES256 signature with the key the JWKS publishes under its `kid`, and its issuer and expiry,
    /// as an app's API would (docs/ACCOUNTS.md "For API developers"); answers the claims.
    private func verifyAgainstJWKS(_ token: String) async throws -> JSONValue {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let header = Base64.urlDecode(parts[0]).flatMap({ JSONValue.parse($0) }),
            let payload = Base64.urlDecode(parts[1]).flatMap({ JSONValue.parse($0) }),
            let signature = Base64.urlDecode(parts[2]), header["alg"]?.stringValue == "ES256",
            let kid = header["kid"]?.stringValue
        else { throw DemoError("the ID token is not an ES256 JWS") }
        let jwks = try await browser.send(OutboundRequest(method: "GET", url: base + "/__/auth/jwks.json"))
        let keys = try JSONDecoder().decode([String: [JWK]].self, from: Data(jwks.body))["keys"] ?? []
        guard let jwk = keys.first(where: { $0.kid == kid }) else { throw DemoError("no key \(kid) in the JWKS") }
        let key = try PublicKey(jwk: jwk)
        guard key.verify(.es256, signature: signature, message: Array((parts[0] + "." + parts[1]).utf8)) else {
            throw DemoError("the ID token's signature does not verify with the published key")
        }
        guard payload["iss"]?.stringValue == base + "/__/auth",
            let expiry = payload["exp"]?.numberValue, expiry > Date().timeIntervalSince1970
        else { throw DemoError("the ID token's issuer or expiry is wrong") }
        return payload
    }

    private func refresh(_ token: String) async throws -> OutboundResponse {
        try await browser.send(
            OutboundRequest(
                method: "POST", url: base + "/__/auth/token",
                headers: ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"],
                body: Array(
                    FormURLEncoding.encode([
                        URLFormField(name: "grant_type", value: "refresh_token"),
                        URLFormField(name: "refresh_token", value: token),
                    ]).utf8)))
    }

    /// A JSON POST answered `200`; its body.
    private func json(_ path: String, _ members: [String: String], bearer: String? = nil, emptyBody: Bool = false)
        async throws -> JSONValue
    {
        var headers: HTTPHeaders = ["Content-Type": "application/json", "Accept": "application/json"]
        if let bearer { headers.set(name: "Authorization", value: "Bearer " + bearer) }
        let body = emptyBody ? [] : JSONValue.object(members.mapValues(JSONValue.string)).serialized
        let response = try await browser.send(
            OutboundRequest(method: "POST", url: base + path, headers: headers, body: body))
        guard response.status == 200, let value = JSONValue.parse(response.body) else {
            let code = JSONValue.parse(response.body)?["error"]?["code"]?.stringValue ?? "no code"
            throw DemoError("\(path) answered HTTP \(response.status) (\(code))")
        }
        return value
    }

    static func member(_ value: JSONValue, _ name: String) throws -> String {
        guard let text = value[name]?.stringValue else { throw DemoError("the answer has no \(name)") }
        return text
    }
}
