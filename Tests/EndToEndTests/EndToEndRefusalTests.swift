import AuthHandlerCore
import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerProtocols
import Foundation
import TestSupport
import Testing

/// Refusals through the real daemon: each asserts the status and error code, and that the daemon keeps serving.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct EndToEndRefusalTests {
    static let oauth2Reserved = [
        "client_id", "redirect_uri", "response_type", "scope", "state", "code_challenge", "code_challenge_method",
        "nonce", "response_mode",
    ]
    static let oauth1Reserved = [
        "oauth_callback", "oauth_token", "oauth_consumer_key", "oauth_signature", "OAuth_Nonce",
    ]

    /// The daemon still signs in after whatever the test did.
    static func expectStillServing(_ e2e: EndToEnd) async throws {
        #expect(try await e2e.get(e2e.daemonURL + "/healthz").status == 200)
        let walk = try await e2e.signIn("google.com")
        #expect(walk.appQuery.first(named: "code") != nil, "a sign-in after the refusals still completes")
    }

    static func expectError(
        _ response: OutboundResponse, status: Int, code: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(response.status == status, "\(response.text)", sourceLocation: sourceLocation)
        #expect(response.errorCode == code, "\(response.text)", sourceLocation: sourceLocation)
        #expect(response.headers["Location"] == nil, sourceLocation: sourceLocation)
    }

    @Test("every reserved custom parameter is refused with 400 reserved-custom-parameter naming it")
    func reservedParameters() async throws {
        try await withEndToEnd { e2e in
            for (provider, names) in [("google.com", Self.oauth2Reserved), ("twitter.com", Self.oauth1Reserved)] {
                for name in names {
                    let url = e2e.startURL(provider, ["customParameters": "{\"\(name)\":\"x\"}"])
                    let response = try await e2e.get(url, accept: "application/json")
                    Self.expectError(response, status: 400, code: "reserved-custom-parameter")
                    #expect(response.json?["error"]?["message"]?.stringValue?.contains(name) == true, "\(name)")
                }
            }
            let html = try await e2e.get(e2e.startURL("google.com", ["customParameters": #"{"state":"x"}"#]))
            #expect(html.status == 400)
            #expect(html.headers["Content-Type"]?.hasPrefix("text/html") == true)
            #expect(html.text.contains("reserved-custom-parameter"))
            try await Self.expectStillServing(e2e)
        }
    }

    @Test(
        "redirect URLs that are not allowed are refused, never redirected to",
        arguments: [
            "//evil.example", "/\\evil.example", "https://app.example.com.evil.example/signed-in",
            "https://app.example.com/signed-in/../x", "https://app.example.com%09.evil.example/",
            "javascript:alert(1)",
            // Scheme, host, port and path must equal an entry's (HTTP-API.md §2.7): another path, a longer one, a
            // trailing slash, another port; the loopback entry takes any port but still only its own path.
            "https://app.example.com/other", "https://app.example.com/signed-in/more",
            "https://app.example.com/signed-in/", "https://app.example.com:8443/signed-in",
            "http://127.0.0.1:4321/other",
        ])
    func badRedirectURLs(_ redirect: String) async throws {
        try await withEndToEnd { e2e in
            let response = try await e2e.get(e2e.startURL("google.com", redirect: redirect), accept: "application/json")
            Self.expectError(response, status: 400, code: "unauthorized-redirect-url")
            try await Self.expectStillServing(e2e)
        }
    }

    @Test("a redirectUrl a SIGHUP reload removed is refused at the callback: 400, no code, nothing exchanged")
    func redirectURLRemovedByReload() async throws {
        try await withEndToEnd { e2e in
            let alice = ["customParameters": #"{"login_hint":"alice"}"#]
            // Two sign-ins in flight, stopped where the IdP sends the browser back: one to the app's URL, which stays
            // allowed, one to the loopback entry, which the reload removes.
            let staying = try await e2e.walk(from: e2e.startURL("google.com", alice), stopAtCallback: true)
            let removed = try await e2e.walk(
                from: e2e.startURL("google.com", alice, redirect: "http://127.0.0.1:4321/done"), stopAtCallback: true)
            let stayingCallback = try #require(staying.callbackURL)
            let removedCallback = try #require(removed.callbackURL)
            try e2e.rewriteConfig(["allowedRedirectURLs": "[\"\(EndToEnd.appRedirect)\"]"])
            e2e.daemon.send(SIGHUP)
            #expect(await e2e.daemon.waitForErrorLine(startingWith: "level=info event=reload outcome=applied") != nil)

            let removedCookie = e2e.cookieHeader()
            let exchangesBefore = try await e2e.idpRequestCount(to: "/oidc/token")
            let refused = try await e2e.get(removedCallback, accept: "application/json")
            Self.expectError(refused, status: 400, code: "unauthorized-redirect-url")
            #expect(!refused.text.contains("127.0.0.1:4321"), "\(refused.text)")
            let cleared = refused.headers.values(for: "Set-Cookie")
            #expect(
                cleared.count == 1 && cleared[0].contains("Max-Age=0"), "the sign-in's cookie is cleared: \(cleared)")
            #expect(try await e2e.idpRequestCount(to: "/oidc/token") == exchangesBefore, "the code was exchanged")
            // The state is used up: delivered again, with the cookie put back, it is a replay.
            let again = try await e2e.send(
                OutboundRequest(
                    method: "GET", url: removedCallback,
                    headers: ["Accept": "application/json", "Cookie": try #require(removedCookie)]),
                freshBrowser: true)
            Self.expectError(again, status: 400, code: "invalid-state")

            let finished = try await e2e.walk(from: stayingCallback)
            #expect(finished.appRedirect?.hasPrefix(EndToEnd.appRedirect + "?") == true, "\(finished.appQuery)")
            let code = try #require(finished.appQuery.first(named: "code"))
            #expect(try await e2e.redeem(code: code).status == 200)
        }
    }

    @Test("missing, unknown and replayed state → 400 invalid-state, never a redirect")
    func badState() async throws {
        try await withEndToEnd { e2e in
            let handler = e2e.daemonURL + "/__/auth/handler"
            Self.expectError(
                try await e2e.get(handler + "?code=abc", accept: "application/json"), status: 400, code: "invalid-state"
            )
            Self.expectError(
                try await e2e.get(handler + "?code=abc&state=unknown", accept: "application/json"), status: 400,
                code: "invalid-state")
            let walk = try await e2e.walk(
                from: e2e.startURL("google.com", ["customParameters": #"{"login_hint":"alice"}"#]), stopAtCallback: true
            )
            let callback = try #require(walk.callbackURL)
            // The browser's cookie as the IdP sends it back: kept, so the replay below presents a cookie that opens.
            let cookie = try #require(e2e.cookieHeader())
            let completed = try await e2e.walk(from: callback)
            #expect(completed.appQuery.first(named: "code") != nil, "\(completed.appQuery)")
            let exchanges = try await e2e.idpRequestCount(to: "/oidc/token")
            let replayed = try await e2e.send(
                OutboundRequest(
                    method: "GET", url: callback, headers: ["Accept": "application/json", "Cookie": cookie]),
                freshBrowser: true)
            Self.expectError(replayed, status: 400, code: "invalid-state")
            #expect(replayed.json?["error"]?["message"]?.stringValue?.contains("already completed") == true)
            #expect(try await e2e.idpRequestCount(to: "/oidc/token") == exchanges, "the replay exchanged the code")
            try await Self.expectStillServing(e2e)
        }
    }

    /// The expiry itself is decided in process on a test clock (`FlowSignInFlowTests.aPendingSignInLivesSessionTTLSeconds`);
    /// here, that the daemon takes `sessionTTLSeconds` from its config into the cookie's lifetime.
    @Test("a pending sign-in's cookie lives sessionTTLSeconds")
    func sessionTTLFromConfig() async throws {
        try await withEndToEnd(settings: ["sessionTTLSeconds": "7"]) { e2e in
            let started = try await e2e.get(e2e.startURL("google.com"))
            #expect(started.status == 302)
            let setCookie = started.headers.values(for: "Set-Cookie")
            #expect(setCookie.count == 1 && setCookie[0].contains("; Max-Age=7;"), "\(setCookie)")
        }
    }

    @Test("an OAuth 1.0a oauth_token that is not the session's request token → 400 invalid-state")
    func oauth1TokenMismatch() async throws {
        try await withEndToEnd { e2e in
            let walk = try await e2e.walk(
                from: e2e.startURL("twitter.com", ["customParameters": #"{"screen_name":"alice"}"#]),
                stopAtCallback: true)
            let callback = try #require(walk.callbackURL)
            let verifier = try #require(
                try FormURLEncoding.decode(String(callback.split(separator: "?")[1])).first(named: "oauth_verifier"))
            let forged = e2e.daemonURL + "/__/auth/handler?oauth_token=not-the-request-token&oauth_verifier=\(verifier)"
            Self.expectError(try await e2e.get(forged, accept: "application/json"), status: 400, code: "invalid-state")
            // The real callback still completes: the forged one consumed nothing.
            let completed = try await e2e.walk(from: callback)
            #expect(completed.appQuery.first(named: "code") != nil)
        }
    }

    @Test("user denial → user-cancelled, for OAuth 2 and OAuth 1.0a", arguments: ["google.com", "twitter.com"])
    func denial(_ provider: String) async throws {
        try await withEndToEnd { e2e in
            let walk = try await e2e.signIn(provider, user: "deny", ["eventId": "e9"])
            #expect(walk.appQuery.first(named: "error") == "user-cancelled")
            #expect(walk.appQuery.first(named: "eventId") == "e9")
            #expect(walk.appQuery.first(named: "code") == nil)
            try await Self.expectStillServing(e2e)
        }
    }

    @Test(
        "token endpoint error, 500 and time-out → provider-error",
        arguments: [
            #"{"endpoint": "oidc/token", "kind": "oauth-error", "error": "invalid_grant"}"#,
            #"{"endpoint": "oidc/token", "kind": "http-status", "status": 500}"#,
            #"{"endpoint": "oidc/token", "kind": "delay", "delayMs": 3000}"#,
        ])
    func tokenEndpointFailures(_ failure: String) async throws {
        try await withEndToEnd { e2e in
            try await e2e.queueFailure(failure)
            let walk = try await e2e.signIn("google.com")
            #expect(walk.appQuery.first(named: "error") == "provider-error", "\(walk.appQuery)")
            #expect(walk.appQuery.first(named: "code") == nil)
            try await Self.expectStillServing(e2e)
        }
    }

    @Test("OAuth 1.0a request-token failure → 502 provider-error at start")
    func requestTokenFailure() async throws {
        try await withEndToEnd { e2e in
            try await e2e.queueFailure(#"{"endpoint": "oauth1/request_token", "kind": "http-status", "status": 503}"#)
            let response = try await e2e.get(e2e.startURL("twitter.com"), accept: "application/json")
            Self.expectError(response, status: 502, code: "provider-error")
            try await Self.expectStillServing(e2e)
        }
    }

    /// RFC 5849 §2.1: a request-token answer without `oauth_callback_confirmed=true` is not from an OAuth 1.0a
    /// server, and the start is refused rather than sending the user on (HTTP-API.md §3.1).
    @Test("an OAuth 1.0a request token without oauth_callback_confirmed → 502 provider-error at start")
    func requestTokenWithoutCallbackConfirmation() async throws {
        try await withEndToEnd { e2e in
            try await e2e.queueFailure(#"{"endpoint": "oauth1/request_token", "kind": "callback-unconfirmed"}"#)
            let response = try await e2e.get(e2e.startURL("twitter.com"), accept: "application/json")
            Self.expectError(response, status: 502, code: "provider-error")
            #expect(response.headers["Set-Cookie"] == nil, "no sign-in is pending")
            #expect(
                response.json?["error"]?["message"]?.stringValue?.contains("oauth_callback_confirmed") == true,
                "\(response.text)")
            #expect(try await e2e.signIn("twitter.com").appQuery.first(named: "code") != nil)
        }
    }

    @Test("a wrong RFC 9207 iss parameter → provider-error")
    func wrongIssParameter() async throws {
        try await withEndToEnd { e2e in
            try await e2e.queueFailure(#"{"endpoint": "oidc/authorize", "kind": "wrong-iss"}"#)
            let walk = try await e2e.signIn("google.com")
            #expect(walk.appQuery.first(named: "error") == "provider-error", "\(walk.appQuery)")
            #expect(walk.appQuery.first(named: "error_description")?.contains("9207") == true)
        }
    }

    @Test(
        "ID tokens with a wrong nonce, aud or iss, expired, badly signed or unsigned → provider-error",
        arguments: ["wrong-nonce", "wrong-aud", "wrong-iss", "expired-id-token", "bad-signature", "unsigned-id-token"])
    func badIDTokens(_ kind: String) async throws {
        try await withEndToEnd { e2e in
            try await e2e.queueFailure("{\"endpoint\": \"oidc/token\", \"kind\": \"\(kind)\"}")
            let walk = try await e2e.signIn("google.com")
            #expect(walk.appQuery.first(named: "error") == "provider-error", "\(kind): \(walk.appQuery)")
            #expect(walk.appQuery.first(named: "code") == nil)
            try await Self.expectStillServing(e2e)
        }
    }

    /// A JWKS key that cannot be used (here a P-256 key whose x coordinate is 31 bytes, RFC 7518 §6.2.1.2) is logged
    /// with its kid and why it was skipped, and the refusal of a token signed with it says that a key with that kid
    /// was there and skipped, instead of only "no ES256 key with kid".
    @Test("a skipped JWKS key is logged with its reason, and the refusal names it")
    func skippedJWKSKeyIsExplained() async throws {
        let e2e = try await EndToEnd.start()
        let walk: EndToEnd.Walk
        do {
            try await e2e.queueFailure(#"{"endpoint": "oidc/token", "kind": "short-coordinate-key"}"#)
            walk = try await e2e.signIn("oidc.public")
        } catch {
            await e2e.stop()
            throw error
        }
        await e2e.stop()
        #expect(walk.appQuery.first(named: "error") == "provider-error", "\(walk.appQuery)")
        let description = walk.appQuery.first(named: "error_description") ?? ""
        let lines = e2e.daemon.standardError.split(separator: "\n")
        let skipped = lines.filter { $0.contains("event=oidc.jwks") }
        #expect(skipped.count == 1, "\(e2e.daemon.standardError)")
        let line = String(skipped.first ?? "")
        #expect(line.hasPrefix("level=warning event=oidc.jwks "))
        #expect(line.contains("outcome=key-skipped"))
        #expect(line.contains("kid=fake-short-coordinate-key"))
        #expect(
            line.contains("reason=\"P-256 coordinates must be 32 bytes each (RFC 7518 §6.2.1.2), got x 31 and y 32\""))
        let refusal = lines.first { $0.contains("event=signin.callback") && $0.contains("outcome=provider-error") }
        #expect(
            refusal?.contains("skipped as unusable: keys[1] (kid \\\"fake-short-coordinate-key\\\")") == true,
            "\(refusal ?? "no refusal logged"); the app was told: \(description)")
    }

    /// OIDC Core §3.1.2.6: a `prompt=none` request that needs the user is answered with one of four errors; the app
    /// gets `interaction-required` with the IdP's error in the description, any other error stays `provider-error`.
    @Test(
        "prompt=none answered with interaction_required and its kin → interaction-required, others provider-error",
        arguments: [
            ("interaction_required", "interaction-required"), ("login_required", "interaction-required"),
            ("consent_required", "interaction-required"), ("account_selection_required", "interaction-required"),
            ("temporarily_unavailable", "provider-error"),
        ])
    func silentSignInNeedsTheUser(_ idpError: String, _ expected: String) async throws {
        try await withEndToEnd { e2e in
            try await e2e.queueFailure(
                "{\"endpoint\": \"oidc/authorize\", \"kind\": \"oauth-error\", \"error\": \"\(idpError)\"}")
            let walk = try await e2e.signIn(
                "google.com", ["customParameters": #"{"login_hint":"alice","prompt":"none"}"#, "eventId": "silent"])
            #expect(walk.appQuery.first(named: "error") == expected, "\(walk.appQuery)")
            #expect(walk.appQuery.first(named: "error_description")?.contains("error=\(idpError)") == true)
            #expect(walk.appQuery.first(named: "eventId") == "silent")
            #expect(walk.appQuery.first(named: "code") == nil)
        }
    }

    @Test("key rotation is accepted after one JWKS refetch")
    func keyRotation() async throws {
        try await withEndToEnd { e2e in
            #expect(try await e2e.signIn("google.com").appQuery.first(named: "code") != nil)
            try await e2e.queueFailure(#"{"endpoint": "oidc/token", "kind": "rotate-keys"}"#)
            let walk = try await e2e.signIn("google.com")
            #expect(walk.appQuery.first(named: "code") != nil, "\(walk.appQuery)")
            let requests = try await e2e.get(e2e.idpURL + "/__fake/requests").json?.arrayValue ?? []
            let jwksFetches = requests.filter { $0["path"]?.stringValue == "/oidc/jwks" }
            #expect(jwksFetches.count == 2, "one fetch, then one refetch for the new kid")
        }
    }

    /// An expired result is refused in process on a test clock (`FlowSignInFlowTests.aResultLivesResultTTLSeconds`).
    @Test("result codes: reused, wrong verifier (then right), never issued → 400 invalid-result-code")
    func resultCodes() async throws {
        try await withEndToEnd { e2e in
            let verifier = try SecureRandom.base64URLString(byteCount: 32)
            let challenge = try PKCE.challenge(forVerifier: verifier)
            let walk = try await e2e.signIn("google.com", ["resultChallenge": challenge])
            let code = try #require(walk.appQuery.first(named: "code"))
            Self.expectError(try await e2e.redeem(code: code), status: 400, code: "invalid-result-code")
            Self.expectError(
                try await e2e.redeem(code: code, verifier: String(verifier.reversed())), status: 400,
                code: "invalid-result-code")
            #expect(try await e2e.redeem(code: code, verifier: verifier).status == 200)
            Self.expectError(
                try await e2e.redeem(code: code, verifier: verifier), status: 400, code: "invalid-result-code")

            Self.expectError(try await e2e.redeem(code: "never-issued"), status: 400, code: "invalid-result-code")
        }
    }

    @Test("a transient backend failure leaves the code redeemable")
    func transientBackendFailure() async throws {
        try await withEndToEnd(backend: .identityToolkit) { e2e in
            let code = try #require(try await e2e.signIn("twitter.com").appQuery.first(named: "code"))
            try await e2e.queueFailure(
                #"{"endpoint": "identitytoolkit/v1/accounts:signInWithIdp", "kind": "http-status", "status": 503}"#)
            Self.expectError(try await e2e.redeem(code: code), status: 502, code: "backend-error")
            let retried = try await e2e.redeem(code: code)
            #expect(retried.status == 200, "\(retried.text)")
        }
    }
}
