import AuthHandlerClient
import AuthHandlerCore
import AuthHandlerHTTP
import Foundation
import TestSupport
import Testing

/// These tests run dozens of sign-ins from one address, and a callback that calls the provider is charged to its
/// client's `startRateLimit` bucket (HTTP-API.md §3.2): give them room, so a failure is the case under test, not 429.
private let manySignIns = ["startRateLimit": #"{"perMinute": 6000, "burst": 1000}"#]

/// `AuthHandlerClient` (the Swift client for apps) against the real `auth-handler serve` and `fake-idp`: the browser is
/// the harness's (it follows the redirects, and the fake IdP approves without a page, HTTP-API.md §4.3); the start URL,
/// the callback URL and the redemption are the client's.
@Suite(.timeLimit(.minutes(3)))
struct EndToEndClientTests {
    static func client(_ e2e: EndToEnd) throws -> AuthHandlerClient {
        AuthHandlerClient(baseURL: try #require(URL(string: e2e.daemonURL)))
    }

    /// `begin` for `provider`, with the custom parameter that makes the fake IdP approve (or deny) as `user`.
    static func begin(
        _ client: AuthHandlerClient, _ provider: String, user: String = "alice",
        redirect: String = EndToEnd.appRedirect, authType: AuthHandlerClient.AuthType = .signIn,
        idToken: String? = nil
    ) throws -> SignInRequest {
        let hint = provider == "twitter.com" ? "screen_name" : "login_hint"
        return try client.begin(
            providerId: provider, redirectURL: try #require(URL(string: redirect)), customParameters: [hint: user],
            authType: authType, idToken: idToken)
    }

    /// Opens `request.url` in the harness's browser; the URL the daemon sent it back to the app with.
    static func browse(_ e2e: EndToEnd, _ request: SignInRequest) async throws -> URL {
        let walk = try await e2e.walk(from: request.url.absoluteString)
        let location = try #require(
            walk.appRedirect, "the browser did not come back: \(walk.handlerResponses.map(\.status))")
        return try #require(URL(string: location))
    }

    /// A whole sign-in as an app makes it: begin, the browser, complete.
    static func signIn(
        _ e2e: EndToEnd, _ provider: String, user: String = "alice", redirect: String = EndToEnd.appRedirect,
        authType: AuthHandlerClient.AuthType = .signIn, idToken: String? = nil
    ) async throws -> SignInResult {
        let client = try client(e2e)
        let request = try begin(client, provider, user: user, redirect: redirect, authType: authType, idToken: idToken)
        return try await client.complete(request, callbackURL: try await browse(e2e, request))
    }

    /// The error `complete` throws; nil, and an issue, when it succeeds.
    static func failure(
        _ what: String, _ complete: () async throws(AuthHandlerClientError) -> SignInResult
    ) async -> AuthHandlerClientError? {
        do {
            let result = try await complete()
            Issue.record("\(what) signed in as \(result.profile.id)")
            return nil
        } catch {
            return error
        }
    }

    /// The `nonce` claim of an ID token's payload.
    static func nonceClaim(_ idToken: String) throws -> String? {
        var payload = String(try #require(idToken.split(separator: ".").dropFirst().first))
        payload = payload.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        payload += String(repeating: "=", count: (4 - payload.count % 4) % 4)
        let json = JSONValue.parse(Array(try #require(Data(base64Encoded: payload))))
        return json?["nonce"]?.stringValue
    }

    static func clearFailures(_ e2e: EndToEnd) async throws {
        let response = try await e2e.send(OutboundRequest(method: "DELETE", url: e2e.idpURL + "/__fake/failures"))
        #expect(response.status == 200)
    }

    @Test("a sign-in with each protocol: OIDC (query and form_post), OAuth 2, a public client, OAuth 1.0a")
    func signInEachProtocol() async throws {
        try await withEndToEnd(settings: manySignIns) { e2e in
            for provider in ["google.com", "apple.com", "github.com", "oidc.public", "twitter.com"] {
                let client = try Self.client(e2e)
                let request = try Self.begin(client, provider)
                let result = try await client.complete(request, callbackURL: try await Self.browse(e2e, request))
                #expect(result.providerId == provider)
                #expect(result.authType == .signIn)
                #expect(result.eventId == request.eventId)
                #expect(result.profile.id == "1001", "\(provider)")
                #expect(result.credential.accessToken?.isEmpty == false, "\(provider)")
                #expect(result.signIn == nil, "backend none")
                switch provider {
                case "twitter.com":
                    #expect(result.credential.secret?.isEmpty == false)
                    #expect(result.profile.screenName == "alice")
                    #expect(result.credential.nonce == nil)
                case "github.com":
                    #expect(result.credential.idToken == nil)
                    #expect(result.credential.nonce == nil)
                default:
                    let idToken = try #require(result.credential.idToken, "\(provider)")
                    #expect(result.profile.email == "alice@example.com")
                    // Firebase's rule (docs/CLIENTS.md): the claim is the lowercase hex SHA-256 of the raw nonce.
                    let nonce = try #require(result.credential.nonce, "\(provider): credential.nonce")
                    let digest = SHA256Digest.hash(Array(nonce.utf8))
                    let hex = digest.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
                    #expect(try Self.nonceClaim(idToken) == hex, "\(provider)")
                }
            }
        }
    }

    @Test("an app's custom scheme (com.example.app:/auth), through identitytoolkit, then a link and its refusals")
    func customSchemeAndLink() async throws {
        try await withEndToEnd(backend: .identityToolkit, settings: manySignIns) { e2e in
            let first = try await Self.signIn(e2e, "google.com", redirect: EndToEnd.appSchemeRedirect)
            let localID = try #require(first.signIn?["localId"]?.stringValue)
            let idToken = try #require(first.signIn?["idToken"]?.stringValue)
            #expect(first.signIn?["isNewUser"]?.boolValue == true)

            let linked = try await Self.signIn(
                e2e, "twitter.com", redirect: EndToEnd.appSchemeRedirect, authType: .link, idToken: idToken)
            #expect(linked.authType == .link)
            #expect(linked.signIn?["localId"]?.stringValue == localID)

            let forged = await Self.failure("a link with an ID token the backend did not issue") {
                () async throws(AuthHandlerClientError) -> SignInResult in
                try await Self.signInTyped(e2e, "github.com", authType: .link, idToken: "not.a.token")
            }
            guard case .invalidUserToken? = forged else {
                Issue.record("a forged idToken → \(String(describing: forged))")
                return
            }

            // bob's google.com identity has its own account; linking it to alice's is refused.
            _ = try await Self.signIn(e2e, "google.com", user: "bob")
            let taken = await Self.failure("linking an identity another account holds") {
                () async throws(AuthHandlerClientError) -> SignInResult in
                try await Self.signInTyped(e2e, "google.com", user: "bob", authType: .link, idToken: idToken)
            }
            guard case .credentialAlreadyInUse? = taken else {
                Issue.record("linking bob's identity → \(String(describing: taken))")
                return
            }
        }
    }

    /// `signIn` with every failure, the harness's included, as the client's error (a harness failure is recorded).
    static func signInTyped(
        _ e2e: EndToEnd, _ provider: String, user: String = "alice", authType: AuthHandlerClient.AuthType = .signIn,
        idToken: String? = nil
    ) async throws(AuthHandlerClientError) -> SignInResult {
        let prepared: (AuthHandlerClient, SignInRequest, URL)
        do {
            let client = try client(e2e)
            let request = try begin(client, provider, user: user, authType: authType, idToken: idToken)
            prepared = (client, request, try await browse(e2e, request))
        } catch let error as AuthHandlerClientError {
            throw error
        } catch {
            Issue.record("the browser failed: \(error)")
            throw .networkError(message: "the harness's browser failed: \(error)")
        }
        return try await prepared.0.complete(prepared.1, callbackURL: prepared.2)
    }

    @Test("a SignInRequest kept as JSON across a relaunch completes once; a tampered verifier does not")
    func survivesRelaunch() async throws {
        try await withEndToEnd(settings: manySignIns) { e2e in
            let stored = try JSONEncoder().encode(try Self.begin(try Self.client(e2e), "google.com"))
            // The app is relaunched while the user is at the provider: a new client, the request read back.
            let request = try JSONDecoder().decode(SignInRequest.self, from: stored)
            let callback = try await Self.browse(e2e, request)

            var tamperedForm = try #require(try JSONSerialization.jsonObject(with: stored) as? [String: Any])
            tamperedForm["verifier"] = String(repeating: "A", count: 43)
            let tampered = try JSONDecoder().decode(
                SignInRequest.self, from: try JSONSerialization.data(withJSONObject: tamperedForm))
            let relaunched = try Self.client(e2e)
            let refused = await Self.failure("a tampered verifier") { () async throws(AuthHandlerClientError) in
                try await relaunched.complete(tampered, callbackURL: callback)
            }
            guard case .invalidResultCode? = refused else {
                Issue.record("a tampered verifier → \(String(describing: refused))")
                return
            }

            let result = try await relaunched.complete(request, callbackURL: callback)
            #expect(result.eventId == request.eventId)
            #expect(result.profile.id == "1001")
            let again = await Self.failure("a second redemption") { () async throws(AuthHandlerClientError) in
                try await relaunched.complete(request, callbackURL: callback)
            }
            guard case .invalidResultCode? = again else {
                Issue.record("a second redemption → \(String(describing: again))")
                return
            }
        }
    }

    @Test("two sign-ins at once: each callback completes only its own request")
    func twoAtOnce() async throws {
        try await withEndToEnd(settings: manySignIns) { e2e in
            let client = try Self.client(e2e)
            let first = try Self.begin(client, "google.com")
            let second = try Self.begin(client, "twitter.com", user: "bob")
            let firstCallback = try await Self.browse(e2e, first)
            let secondCallback = try await Self.browse(e2e, second)
            let crossed = await Self.failure("the second's callback for the first") {
                () async throws(AuthHandlerClientError) in
                try await client.complete(first, callbackURL: secondCallback)
            }
            #expect(crossed == .mismatchedEventId(expected: first.eventId, received: second.eventId))
            #expect(try await client.complete(second, callbackURL: secondCallback).profile.id == "1002")
            #expect(try await client.complete(first, callbackURL: firstCallback).profile.id == "1001")
        }
    }

    /// A failure the fake IdP produces during a sign-in (HTTP-API.md §4.3, §4.4), and the case the app gets.
    struct ProviderFailure: Sendable {
        var name: String
        var provider = "google.com"
        var user = "alice"
        /// Queued at the fake IdP before the sign-in (`POST /__fake/failures` objects).
        var queued: [String] = []
        var expected: @Sendable (AuthHandlerClientError) -> Bool
    }

    static let providerError: @Sendable (AuthHandlerClientError) -> Bool = {
        if case .providerError = $0 { true } else { false }
    }
    static let userCancelled: @Sendable (AuthHandlerClientError) -> Bool = {
        if case .userCancelled = $0 { true } else { false }
    }
    static let interactionRequired: @Sendable (AuthHandlerClientError) -> Bool = {
        if case .interactionRequired = $0 { true } else { false }
    }

    static let providerFailures: [ProviderFailure] = [
        ProviderFailure(name: "OIDC: the user denies", user: "deny", expected: userCancelled),
        ProviderFailure(
            name: "form_post: the user denies", provider: "apple.com", user: "deny", expected: userCancelled),
        ProviderFailure(
            name: "OAuth 2: the user denies", provider: "github.com", user: "deny", expected: userCancelled),
        ProviderFailure(
            name: "OAuth 1.0a: the user denies", provider: "twitter.com", user: "deny", expected: userCancelled),
        ProviderFailure(
            name: "authorize answers access_denied",
            queued: [#"{"endpoint": "oidc/authorize", "kind": "oauth-error", "error": "access_denied"}"#],
            expected: userCancelled),
        ProviderFailure(
            name: "authorize answers login_required (prompt=none)",
            queued: [#"{"endpoint": "oidc/authorize", "kind": "oauth-error", "error": "login_required"}"#],
            expected: interactionRequired),
        ProviderFailure(
            name: "authorize answers server_error",
            queued: [#"{"endpoint": "oidc/authorize", "kind": "oauth-error", "error": "server_error"}"#],
            expected: providerError),
        ProviderFailure(
            name: "authorize adds a wrong RFC 9207 iss",
            queued: [#"{"endpoint": "oidc/authorize", "kind": "wrong-iss"}"#],
            expected: providerError),
        ProviderFailure(
            name: "token answers invalid_grant",
            queued: [#"{"endpoint": "oidc/token", "kind": "oauth-error", "error": "invalid_grant"}"#],
            expected: providerError),
        ProviderFailure(
            name: "token answers 500", queued: [#"{"endpoint": "oidc/token", "kind": "http-status", "status": 500}"#],
            expected: providerError),
        ProviderFailure(
            name: "token answers after the provider time-out (2 s)",
            queued: [#"{"endpoint": "oidc/token", "kind": "delay", "delayMs": 2500}"#], expected: providerError),
        ProviderFailure(
            name: "an ID token with a bad signature", queued: [#"{"endpoint": "oidc/token", "kind": "bad-signature"}"#],
            expected: providerError),
        ProviderFailure(
            name: "an ID token with a wrong iss", queued: [#"{"endpoint": "oidc/token", "kind": "wrong-iss"}"#],
            expected: providerError),
        ProviderFailure(
            name: "an ID token with a wrong nonce", queued: [#"{"endpoint": "oidc/token", "kind": "wrong-nonce"}"#],
            expected: providerError),
        ProviderFailure(
            name: "an ID token for another audience", queued: [#"{"endpoint": "oidc/token", "kind": "wrong-aud"}"#],
            expected: providerError),
        ProviderFailure(
            name: "an expired ID token", queued: [#"{"endpoint": "oidc/token", "kind": "expired-id-token"}"#],
            expected: providerError),
        ProviderFailure(
            name: "an unsigned ID token", queued: [#"{"endpoint": "oidc/token", "kind": "unsigned-id-token"}"#],
            expected: providerError),
        ProviderFailure(
            name: "OAuth 2 userinfo answers 500", provider: "github.com",
            queued: [#"{"endpoint": "oidc/userinfo", "kind": "http-status", "status": 500}"#], expected: providerError),
        ProviderFailure(
            name: "OAuth 2 token answers 500", provider: "github.com",
            queued: [#"{"endpoint": "oidc/token", "kind": "http-status", "status": 500}"#], expected: providerError),
        ProviderFailure(
            name: "OAuth 1.0a access token answers 500", provider: "twitter.com",
            queued: [#"{"endpoint": "oauth1/access_token", "kind": "http-status", "status": 500}"#],
            expected: providerError),
        ProviderFailure(
            name: "OAuth 1.0a access token refuses the signature", provider: "twitter.com",
            queued: [#"{"endpoint": "oauth1/access_token", "kind": "bad-signature"}"#], expected: providerError),
        ProviderFailure(
            name: "OAuth 1.0a profile answers 500", provider: "twitter.com",
            queued: [#"{"endpoint": "oauth1/account/verify_credentials.json", "kind": "http-status", "status": 500}"#],
            expected: providerError),
        // Last: the daemon then holds no key for the new kid, and refetches at most once in 10 s.
        ProviderFailure(
            name: "new signing keys and a JWKS that answers 500",
            queued: [
                #"{"endpoint": "oidc/token", "kind": "rotate-keys"}"#,
                #"{"endpoint": "oidc/jwks", "kind": "http-status", "status": 500}"#,
            ], expected: providerError),
    ]

    @Test("every failure the fake IdP produces during a sign-in reaches complete as its case")
    func providerFailuresMapped() async throws {
        try await withEndToEnd(settings: manySignIns) { e2e in
            // Discovery and the JWKS are fetched once first, so that each failure below meets a warm daemon. (The
            // daemon refetches the JWKS for an unknown kid at most once in 10 s, so rotated keys come once here.)
            #expect(try await Self.signIn(e2e, "google.com").profile.id == "1001")
            for failure in Self.providerFailures {
                try await Self.clearFailures(e2e)
                for queued in failure.queued { try await e2e.queueFailure(queued) }
                let error = await Self.failure(failure.name) { () async throws(AuthHandlerClientError) in
                    try await Self.signInTyped(e2e, failure.provider, user: failure.user)
                }
                #expect(error.map(failure.expected) == true, "\(failure.name) → \(String(describing: error))")
                #expect(error?.message.isEmpty == false, "\(failure.name): the daemon's error_description")
                let left = try await e2e.get(e2e.idpURL + "/__fake/failures").json?.arrayValue
                #expect(
                    left?.isEmpty == true,
                    "\(failure.name): every queued failure happened; left: \(String(describing: left))")
            }
        }
    }

    /// A sign-in backend answer (HTTP-API.md §3.3) the fake Identity Toolkit gives, and the case the app gets.
    struct BackendFailure: Sendable {
        var name: String
        var provider = "google.com"
        var user = "alice"
        var queued: String?
        var expected: @Sendable (AuthHandlerClientError) -> Bool
        /// Whether the code stays redeemable (a transient failure), so that `complete` again succeeds.
        var retrySucceeds = false
    }

    static func identityToolkitError(_ code: String) -> String {
        "{\"endpoint\": \"identitytoolkit/v1/accounts:signInWithIdp\", \"kind\": \"oauth-error\", \"error\": \"\(code)\"}"
    }

    static let backendFailures: [BackendFailure] = [
        BackendFailure(
            name: "needConfirmation (user conflict)", user: "conflict",
            expected: {
                guard case .accountExistsWithDifferentCredential(let email, let providers, let credential, _, _) = $0
                else { return false }
                return email == "conflict@example.com" && providers == ["password"]
                    && credential?.accessToken?.isEmpty == false && credential?.idToken?.isEmpty == false
            }),
        BackendFailure(
            name: "needConfirmation over OAuth 1.0a (user conflict)", provider: "twitter.com", user: "conflict",
            expected: {
                guard case .accountExistsWithDifferentCredential(_, _, let credential, _, _) = $0 else { return false }
                return credential?.secret?.isEmpty == false
            }),
        BackendFailure(
            name: "mfaPendingCredential (user mfa)", user: "mfa",
            expected: {
                guard case .secondFactorRequired(let pending, let info, _) = $0 else { return false }
                return pending.hasPrefix("fake-mfa-pending-") && info[0]?["phoneInfo"] == .string("+*******1234")
            }),
        BackendFailure(
            name: "USER_DISABLED", queued: identityToolkitError("USER_DISABLED"),
            expected: { if case .userDisabled = $0 { true } else { false } }),
        BackendFailure(
            name: "EMAIL_EXISTS", queued: identityToolkitError("EMAIL_EXISTS"),
            expected: { if case .emailAlreadyInUse = $0 { true } else { false } }),
        BackendFailure(
            name: "FEDERATED_USER_ID_ALREADY_LINKED", queued: identityToolkitError("FEDERATED_USER_ID_ALREADY_LINKED"),
            expected: { if case .credentialAlreadyInUse = $0 { true } else { false } }),
        BackendFailure(
            name: "INVALID_ID_TOKEN", queued: identityToolkitError("INVALID_ID_TOKEN"),
            expected: { if case .invalidUserToken = $0 { true } else { false } }),
        BackendFailure(
            name: "INVALID_IDP_RESPONSE (a definite refusal: the code is used up)",
            queued: identityToolkitError("INVALID_IDP_RESPONSE"),
            expected: { if case .backendError = $0 { true } else { false } }),
        BackendFailure(
            name: "TOO_MANY_ATTEMPTS_TRY_LATER (transient)",
            queued: identityToolkitError("TOO_MANY_ATTEMPTS_TRY_LATER"),
            expected: { if case .backendError = $0 { true } else { false } }, retrySucceeds: true),
        BackendFailure(
            name: "HTTP 503 (transient)",
            queued: #"{"endpoint": "identitytoolkit/v1/accounts:signInWithIdp", "kind": "http-status", "status": 503}"#,
            expected: { if case .backendError = $0 { true } else { false } }, retrySucceeds: true),
        BackendFailure(
            name: "an answer after the time-out (transient)",
            queued: #"{"endpoint": "identitytoolkit/v1/accounts:signInWithIdp", "kind": "delay", "delayMs": 2500}"#,
            expected: { if case .backendError = $0 { true } else { false } }, retrySucceeds: true),
    ]

    @Test("every answer of the fake sign-in backend reaches complete as its case, with its members")
    func backendFailuresMapped() async throws {
        try await withEndToEnd(backend: .identityToolkit, settings: manySignIns) { e2e in
            for failure in Self.backendFailures {
                try await Self.clearFailures(e2e)
                let client = try Self.client(e2e)
                let request = try Self.begin(client, failure.provider, user: failure.user)
                let callback = try await Self.browse(e2e, request)
                if let queued = failure.queued { try await e2e.queueFailure(queued) }
                let error = await Self.failure(failure.name) { () async throws(AuthHandlerClientError) in
                    try await client.complete(request, callbackURL: callback)
                }
                #expect(error.map(failure.expected) == true, "\(failure.name) → \(String(describing: error))")
                let left = try await e2e.get(e2e.idpURL + "/__fake/failures").json?.arrayValue
                #expect(left?.isEmpty == true, "\(failure.name): the queued failure happened")
                do throws(AuthHandlerClientError) {
                    _ = try await client.complete(request, callbackURL: callback)
                    #expect(failure.retrySucceeds, "\(failure.name): redeemed after a definite answer")
                } catch {
                    #expect(!failure.retrySucceeds, "\(failure.name): not redeemable again: \(error)")
                    guard case .invalidResultCode = error else {
                        Issue.record("\(failure.name): redeemed again → \(error)")
                        continue
                    }
                }
            }
        }
    }

    @Test("a second complete while the first waits on the backend → redemptionInProgress with Retry-After")
    func redemptionInProgress() async throws {
        // The backend holds the first redemption for 6 s of an 8 s provider time-out: a window the second one reaches
        // even on a loaded machine (with 1.5 s, a slow poll of the fake IdP let the first finish first).
        let settings = manySignIns.merging(["providerTimeoutSeconds": "8"]) { $1 }
        try await withEndToEnd(backend: .identityToolkit, settings: settings) { e2e in
            let client = try Self.client(e2e)
            let request = try Self.begin(client, "google.com")
            let callback = try await Self.browse(e2e, request)
            try await e2e.queueFailure(
                #"{"endpoint": "identitytoolkit/v1/accounts:signInWithIdp", "kind": "delay", "delayMs": 6000}"#)
            // Once the backend has the first redemption (and sits on it for 6 s), the code is held.
            let first = try await e2e.whileIdPHolds(path: "/identitytoolkit/v1/accounts:signInWithIdp") {
                try await client.complete(request, callbackURL: callback)
            }
            let held = await Self.failure("a concurrent redemption") { () async throws(AuthHandlerClientError) in
                try await client.complete(request, callbackURL: callback)
            }
            guard case .redemptionInProgress(let retryAfter, _)? = held else {
                Issue.record("a concurrent redemption → \(String(describing: held))")
                return
            }
            #expect(retryAfter == 9, "providerTimeoutSeconds 8 + 1")
            #expect(try await first.value.profile.id == "1001")
        }
    }
}
