import Foundation
import TestSupport
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerCrypto
@testable import AuthHandlerHTTP
@testable import AuthHandlerProtocols
@testable import AuthHandlerStore
@testable import AuthHandlerSystem
@testable import auth_handler

/// The sign-in flow of HTTP-API.md §3 in process: start, callback and redemption against a scripted provider
/// (`ScriptedHTTP` answering discovery, JWKS, token, userinfo and the OAuth 1.0a endpoints by URL) and a settable
/// clock (`TestClock`), so that TTLs pass when a test says so, never by sleeping.
struct FlowSignInFlowTests {
    static let issuer = OIDCTestTokens.issuer
    static let tokenURL = issuer + "/token"
    static let userInfoURL = issuer + "/userinfo"
    static let requestTokenURL = "https://api.x.example/oauth/request_token"
    static let accessTokenURL = "https://api.x.example/oauth/access_token"
    static let redirect = "https://app.example.com/signed-in"
    static let subject = "248289761001"
    static let verifier = "flow-test-verifier-0123456789-abcdefghijklmnopqrstuvwxyz"
    static let sessionTTL: Duration = .seconds(600)
    static let resultTTL: Duration = .seconds(120)

    /// A flow on a memory store, its scripted provider and its clock.
    struct Harness {
        let flow: SignInFlow
        let http: ScriptedHTTP
        let clock: TestClock
        let store: MemorySessionStore
        let key: SigningKey

        init(requireResultChallenge: Bool = true) throws {
            clock = TestClock()
            http = ScriptedHTTP()
            store = MemorySessionStore(now: clock.read)
            key = try SigningKey.generate(.es256, keyID: "flow-1")
            let issuer = FlowSignInFlowTests.issuer
            http.serve(issuer + "/.well-known/openid-configuration", json: OIDCDiscoveryTests.document(issuer: issuer))
            http.serveKeys(issuer + "/jwks", [key.publicKey.jwk])
            http.serve(
                FlowSignInFlowTests.userInfoURL,
                json: .object(["sub": .string(FlowSignInFlowTests.subject), "name": .string("Alice")]))
            http.serve(
                FlowSignInFlowTests.requestTokenURL,
                .form(200, "oauth_token=request-1&oauth_token_secret=request-secret&oauth_callback_confirmed=true"))
            http.serve(
                FlowSignInFlowTests.accessTokenURL,
                .form(200, "oauth_token=access-1&oauth_token_secret=access-secret&user_id=783214&screen_name=alice"))
            // The OIDC provider is completed by discovery; the OAuth 1.0a one is configured in full.
            let oidc = ProviderDescriptor(
                id: "oidc.test", protocolKind: .oidc, endpoints: ProviderEndpoints(),
                clientID: OIDCTestTokens.clientID, clientSecret: .fixed(Secret("client-secret")),
                issuer: .exact(issuer), idTokenAlgorithms: [.es256], profileMapping: .oidc)
            let oauth1 = ProviderDescriptor(
                id: "twitter.com", protocolKind: .oauth1, isBuiltIn: true,
                endpoints: ProviderEndpoints(
                    requestToken: URL(string: FlowSignInFlowTests.requestTokenURL),
                    authorize: URL(string: "https://api.x.example/oauth/authenticate"),
                    accessToken: URL(string: FlowSignInFlowTests.accessTokenURL)),
                clientID: "consumer-key", clientSecret: .fixed(Secret("consumer-secret")), profileMapping: .twitter)
            let settings = SignInFlow.Settings(
                redirectURI: "https://auth.example.com/__/auth/handler",
                redirectPolicy: RedirectURLPolicy(allowed: [FlowSignInFlowTests.redirect]),
                stateKeys: try StateKeyRing.random(), sessionTTL: FlowSignInFlowTests.sessionTTL,
                resultTTL: FlowSignInFlowTests.resultTTL, requireResultChallenge: requireResultChallenge)
            flow = SignInFlow(
                settings: settings, providers: ProviderRegistry(descriptors: [oidc, oauth1]), store: store,
                backend: NoSignInBackend(), http: http,
                observer: SignInTelemetry(log: EventLog(sink: DiscardingLogSink()), metrics: Metrics()),
                now: clock.read)
        }

        /// Starts a sign-in with `provider`, its result bound to ``FlowSignInFlowTests/verifier`` unless `challenge`
        /// is false, with `extra` fields.
        func start(_ provider: String, challenge: Bool = true, _ extra: [(String, String)] = []) async throws
            -> StartAnswer
        {
            var fields = [("providerId", provider), ("redirectUrl", FlowSignInFlowTests.redirect)]
            if challenge {
                fields.append(("resultChallenge", try PKCE.challenge(forVerifier: FlowSignInFlowTests.verifier)))
            }
            return try await flow.start((fields + extra).map { URLFormField(name: $0.0, value: $0.1) })
        }

        /// Scripts the token endpoint's answer for the OIDC sign-in `started`: an ID token for its nonce, issued now.
        func serveToken(for started: StartAnswer) throws {
            let nonce = try #require(FlowSignInFlowTests.query(started.location).first(named: "nonce"))
            let idToken = try OIDCTestTokens.sign(
                OIDCTestTokens.claims(now: clock.date, ["nonce": .string(nonce)]), key: key)
            http.serve(
                FlowSignInFlowTests.tokenURL,
                .json(200, #"{"access_token":"access-2","token_type":"Bearer","id_token":"\#(idToken)"}"#))
        }

        /// The IdP's callback for `started` carrying `fields`, from the browser that holds its cookie.
        func callback(_ fields: [(String, String)], cookie started: StartAnswer) async -> CallbackAnswer {
            await flow.callback(
                fields.map { URLFormField(name: $0.0, value: $0.1) }, cookieHeaders: [started.cookiePair],
                formPost: false)
        }

        /// The approving callback of the OIDC sign-in `started`.
        func approve(_ started: StartAnswer) async throws -> CallbackAnswer {
            let state = try #require(FlowSignInFlowTests.query(started.location).first(named: "state"))
            return await callback(
                [("state", state), ("code", "code-1"), ("iss", FlowSignInFlowTests.issuer)], cookie: started)
        }

        /// Redeems `code` with `fields` added.
        func redeem(_ code: String, _ fields: [(String, String)] = [("verifier", FlowSignInFlowTests.verifier)])
            async throws(APIError) -> RedemptionAnswer
        {
            try await flow.redeem(
                ([("code", code)] + fields).map { URLFormField(name: $0.0, value: $0.1) })
        }

        /// Whether the store would still record `key` as used, i.e. the flow did not: probing records it.
        func stateWasUnused(_ key: String) async throws -> Bool {
            try await store.recordUsedState(key: key, expiresAt: clock.date.addingTimeInterval(3600))
        }
    }

    /// The query fields of `url`.
    static func query(_ url: String) -> [URLFormField] {
        guard let query = url.split(separator: "?", maxSplits: 1).dropFirst().first else { return [] }
        return (try? FormURLEncoding.decode(String(query))) ?? []
    }

    /// The result code of a callback that redirected to the app, or nil (recording an issue).
    static func resultCode(_ answer: CallbackAnswer, sourceLocation: SourceLocation = #_sourceLocation) -> String? {
        guard case .redirect(let location) = answer.outcome else {
            Issue.record("expected a redirect, got \(answer.outcome)", sourceLocation: sourceLocation)
            return nil
        }
        #expect(location.hasPrefix(redirect + "?"), sourceLocation: sourceLocation)
        let code = query(location).first(named: "code")
        #expect(code != nil, "\(location)", sourceLocation: sourceLocation)
        return code
    }

    /// The refusal of a callback, or nil when it redirected.
    static func refusal(_ answer: CallbackAnswer) -> APIError? {
        if case .refused(let error) = answer.outcome { return error }
        return nil
    }

    /// The error `work` throws, or nil.
    static func redeemError(_ work: () async throws(APIError) -> RedemptionAnswer) async -> APIError? {
        do {
            _ = try await work()
            return nil
        } catch {
            return error
        }
    }

    /// A cookie for `session` sealed under the name of another state (or request token) `nameKey`: what a flow whose
    /// callback compared the cookie's state with itself, instead of with the response's, would accept.
    static func cookie(for session: PendingSession, namedFor nameKey: String, flow: SignInFlow) throws -> String {
        let name = try #require(SignInCookie.name(forState: nameKey, httpsOrigin: true))
        let value = try flow.settings.stateKeys.seal(try SignInFlow.encode(session), context: name)
        return "\(name)=\(value)"
    }

    static func pendingSession(state: String? = nil, requestToken: String? = nil, createdAt: Date) -> PendingSession {
        PendingSession(
            providerID: requestToken == nil ? "oidc.test" : "twitter.com", state: state, redirectURL: redirect,
            authType: .signInViaRedirect, eventID: nil, resultChallenge: nil, scopes: [], codeVerifier: "v",
            nonce: nil, requestToken: requestToken, requestTokenSecret: requestToken.map { _ in "secret" },
            createdAt: createdAt, expiresAt: createdAt.addingTimeInterval(sessionTTL.timeInterval))
    }

    // MARK: Start, callback, redeem

    @Test func anOIDCSignInStartsCompletesAndIsRedeemedOnce() async throws {
        let harness = try Harness()
        let started = try await harness.start("oidc.test")
        #expect(started.location.hasPrefix(Self.issuer + "/authorize?"))
        let query = Self.query(started.location)
        let state = try #require(query.first(named: "state"))
        let challenge = try #require(query.first(named: "code_challenge"))
        #expect(query.first(named: "code_challenge_method") == "S256")
        #expect(query.first(named: "client_id") == OIDCTestTokens.clientID)
        // Nothing is written at the start: the pending sign-in is the cookie named after its state.
        let name = try #require(SignInCookie.name(forState: state, httpsOrigin: true))
        #expect(started.cookiePair.hasPrefix(name + "="))
        #expect(started.setCookie.contains("Max-Age=\(Self.sessionTTL.components.seconds)"))

        try harness.serveToken(for: started)
        let answer = try await harness.approve(started)
        let code = try #require(Self.resultCode(answer))
        #expect(answer.clearCookie?.hasPrefix(name + "=;") == true)
        // The code was exchanged with the PKCE verifier whose S256 is the challenge sent at the start.
        let exchange = try #require(harness.http.requests(to: Self.tokenURL).first)
        let verifier = try #require(exchange.formFields.first(named: "code_verifier"))
        #expect(try PKCE.challenge(forVerifier: verifier) == challenge)
        #expect(exchange.formFields.first(named: "code") == "code-1")

        let redeemed = try await harness.redeem(code)
        #expect(redeemed.providerId == "oidc.test")
        #expect(redeemed.profile.id == Self.subject)
        // The app gets the raw nonce; the provider was sent its hash.
        let rawNonce = try #require(redeemed.credential.nonce)
        #expect(try OIDCNonce.hashed(rawNonce) == query.first(named: "nonce"))
        let again = await Self.redeemError { () throws(APIError) in try await harness.redeem(code) }
        #expect(again?.code == .invalidResultCode)
    }

    @Test func anOAuth1SignInStartsCompletesAndIsRedeemed() async throws {
        let harness = try Harness()
        let started = try await harness.start("twitter.com")
        #expect(Self.query(started.location).first(named: "oauth_token") == "request-1")
        let name = try #require(SignInCookie.name(forState: "request-1", httpsOrigin: true))
        #expect(started.cookiePair.hasPrefix(name + "="))
        let answer = await harness.callback(
            [("oauth_token", "request-1"), ("oauth_verifier", "verifier-1")], cookie: started)
        let code = try #require(Self.resultCode(answer))
        let exchange = try #require(harness.http.requests(to: Self.accessTokenURL).first)
        #expect(exchange.headers["Authorization"]?.contains(#"oauth_verifier="verifier-1""#) == true)
        let redeemed = try await harness.redeem(code)
        #expect(redeemed.credential.accessToken == "access-1")
        #expect(redeemed.credential.secret == "access-secret")
        #expect(redeemed.profile.id == "783214")
    }

    @Test func aCallbackIsAcceptedOnceEvenWithItsCookieKept() async throws {
        let harness = try Harness()
        let started = try await harness.start("oidc.test")
        try harness.serveToken(for: started)
        _ = try #require(Self.resultCode(try await harness.approve(started)))
        // The browser did not drop the cookie (or put it back): the state is used up all the same.
        let replayed = try await harness.approve(started)
        #expect(Self.refusal(replayed)?.code == .invalidState)
        #expect(harness.http.requests(to: Self.tokenURL).count == 1, "the replay exchanged the code again")
    }

    // MARK: The state in the cookie is the response's (HTTP-API.md §3.2)

    /// A cookie holding the sign-in for state S1 (OAuth 1.0a: request token T1), sealed under the cookie name of S2,
    /// opens for a callback with `state=S2`; only comparing the response's state with the cookie's refuses it.
    @Test(arguments: [false, true])
    func aCookieSealedForAnotherStateUnderThisStatesNameIsRefused(oauth1: Bool) async throws {
        let harness = try Harness()
        let (sealed, presented) = oauth1 ? ("token-T1", "token-T2") : ("state-S1", "state-S2")
        let session =
            oauth1
            ? Self.pendingSession(requestToken: sealed, createdAt: harness.clock.date)
            : Self.pendingSession(state: sealed, createdAt: harness.clock.date)
        let stateName = oauth1 ? "oauth_token" : "state"
        let exchange = oauth1 ? ("oauth_verifier", "v") : ("code", "c")
        let moved = try Self.cookie(for: session, namedFor: presented, flow: harness.flow)
        let answer = await harness.flow.callback(
            [URLFormField(name: stateName, value: presented), URLFormField(name: exchange.0, value: exchange.1)],
            cookieHeaders: [moved], formPost: false)
        let refusal = Self.refusal(answer)
        #expect(refusal?.code == .invalidState && refusal?.status == 400, "\(answer.outcome)")
        // A callback records the state it presents; nothing was recorded, and nothing exchanged.
        let key = oauth1 ? PendingSession.key(requestToken: presented) : PendingSession.key(state: presented)
        #expect(try await harness.stateWasUnused(key), "a used state was recorded")
        #expect(harness.http.requests(to: oauth1 ? Self.accessTokenURL : Self.tokenURL).isEmpty)

        // The same sign-in under its own state's name is accepted (the user denied it): the refusal above is the
        // state comparison's.
        let own = try Self.cookie(for: session, namedFor: sealed, flow: harness.flow)
        let denial =
            oauth1
            ? [URLFormField(name: "denied", value: sealed)]
            : [URLFormField(name: "state", value: sealed), URLFormField(name: "error", value: "access_denied")]
        let accepted = await harness.flow.callback(denial, cookieHeaders: [own], formPost: false)
        #expect(Self.refusal(accepted) == nil, "\(accepted.outcome)")
    }

    // MARK: TTLs, on the test's clock

    @Test func aPendingSignInLivesSessionTTLSeconds() async throws {
        let harness = try Harness()
        let onTime = try await harness.start("oidc.test")
        let late = try await harness.start("oidc.test")
        harness.clock.advance(by: Self.sessionTTL - .seconds(1))
        try harness.serveToken(for: onTime)
        _ = try #require(Self.resultCode(try await harness.approve(onTime)))

        harness.clock.advance(by: 1)
        let expired = try await harness.approve(late)
        #expect(Self.refusal(expired)?.code == .invalidState, "\(expired.outcome)")
        #expect(Self.refusal(expired)?.message.contains("expired") == true)
        let lateState = try #require(Self.query(late.location).first(named: "state"))
        #expect(try await harness.stateWasUnused(PendingSession.key(state: lateState)))
        #expect(harness.http.requests(to: Self.tokenURL).count == 1, "the expired sign-in's code was exchanged")
    }

    @Test func aResultLivesResultTTLSeconds() async throws {
        let harness = try Harness()
        var codes: [String] = []
        for _ in 0..<2 {
            let started = try await harness.start("oidc.test")
            try harness.serveToken(for: started)
            codes.append(try #require(Self.resultCode(try await harness.approve(started))))
        }
        harness.clock.advance(by: Self.resultTTL - .seconds(1))
        #expect(try await harness.redeem(codes[0]).providerId == "oidc.test")
        harness.clock.advance(by: 1)
        let expired = await Self.redeemError { () throws(APIError) in try await harness.redeem(codes[1]) }
        #expect(expired?.code == .invalidResultCode && expired?.status == 400)
    }

    // MARK: The app's proof at redemption (HTTP-API.md §3.3)

    @Test func aRedemptionNeedsTheVerifierOfItsChallengeAndKeepsTheCodeUntilThen() async throws {
        let harness = try Harness()
        let started = try await harness.start("twitter.com")
        let code = try #require(
            Self.resultCode(
                await harness.callback([("oauth_token", "request-1"), ("oauth_verifier", "v")], cookie: started)))
        for fields in [[], [("verifier", String(Self.verifier.reversed()))], [("verifier", "")]] {
            let refused = await Self.redeemError { () throws(APIError) in try await harness.redeem(code, fields) }
            #expect(refused?.code == .invalidResultCode, "\(fields)")
        }
        #expect(try await harness.redeem(code).profile.id == "783214")
    }

    @Test func aVerifierForASignInStartedWithoutChallengeIsRefused() async throws {
        let harness = try Harness(requireResultChallenge: false)
        let started = try await harness.start("twitter.com", challenge: false)
        let code = try #require(
            Self.resultCode(
                await harness.callback([("oauth_token", "request-1"), ("oauth_verifier", "v")], cookie: started)))
        let refused = await Self.redeemError { () throws(APIError) in try await harness.redeem(code) }
        #expect(refused?.code == .invalidResultCode)
        #expect(try await harness.redeem(code, []).providerId == "twitter.com")
    }

    @Test func aLinkNeedsTheUsersIDToken() async throws {
        let harness = try Harness()
        let started = try await harness.start("twitter.com", [("authType", "linkViaRedirect")])
        let code = try #require(
            Self.resultCode(
                await harness.callback([("oauth_token", "request-1"), ("oauth_verifier", "v")], cookie: started)))
        let refused = await Self.redeemError { () throws(APIError) in try await harness.redeem(code) }
        #expect(refused?.code == .invalidRequest && refused?.message.contains("idToken") == true)
        let linked = try await harness.redeem(code, [("verifier", Self.verifier), ("idToken", "app-id-token")])
        #expect(linked.authType == .linkViaRedirect)
    }

    // MARK: resultDelivery (HTTP-API.md §3.1, §3.2)

    /// The 303 of a sign-in started with `resultDelivery=fragment` carries the result after `#`, where no browser
    /// sends it on (in a request or a `Referer`); the redirect URL itself is unchanged.
    @Test func aResultAskedForInTheFragmentArrivesInTheFragment() async throws {
        let harness = try Harness()
        let started = try await harness.start("oidc.test", [("eventId", "e1"), ("resultDelivery", "fragment")])
        try harness.serveToken(for: started)
        guard case .redirect(let location) = try await harness.approve(started).outcome else {
            Issue.record("the callback did not redirect")
            return
        }
        #expect(location.hasPrefix(Self.redirect + "#code="))
        #expect(!location.contains("?"))
        let fragment = try FormURLEncoding.decode(String(location.dropFirst(Self.redirect.utf8.count + 1)))
        #expect(fragment.map(\.name) == ["code", "eventId"])
        #expect(fragment.first(named: "eventId") == "e1")
        let code = try #require(fragment.first(named: "code"))
        #expect(try await harness.redeem(code).eventId == "e1")
    }

    /// A failure goes where the result would have: `error`, `error_description` and `eventId` in the fragment.
    @Test func aFailureAskedForInTheFragmentArrivesInTheFragment() async throws {
        let harness = try Harness()
        let started = try await harness.start("twitter.com", [("eventId", "e2"), ("resultDelivery", "fragment")])
        let answer = await harness.callback([("denied", "request-1")], cookie: started)
        guard case .redirect(let location) = answer.outcome else {
            Issue.record("the callback did not redirect")
            return
        }
        #expect(location.hasPrefix(Self.redirect + "#error=user-cancelled&error_description="))
        #expect(location.hasSuffix("&eventId=e2"))
        #expect(!location.contains("?"))
    }

    /// `query`, given or not, is the query; anything else is refused naming the parameter.
    @Test func resultDeliveryIsTheQueryUnlessFragmentIsAskedFor() async throws {
        let harness = try Harness()
        let started = try await harness.start("oidc.test", [("resultDelivery", "query")])
        try harness.serveToken(for: started)
        _ = try #require(Self.resultCode(try await harness.approve(started)))
        for given in [[("resultDelivery", "hash")], [("resultDelivery", "Fragment")], [("resultDelivery", "")]] {
            do {
                _ = try await harness.start("oidc.test", given)
                Issue.record("\(given) was accepted")
            } catch let error as APIError {
                #expect(error.code == .invalidRequest)
                #expect(error.message.contains("resultDelivery"))
            }
        }
    }

    // MARK: OAuth 1.0a's callback confirmation (RFC 5849 §2.1)

    @Test func aRequestTokenAnswerWithoutCallbackConfirmationFailsTheStart() async throws {
        let harness = try Harness()
        harness.http.serve(Self.requestTokenURL, .form(200, "oauth_token=request-1&oauth_token_secret=request-secret"))
        let fields = [
            URLFormField(name: "providerId", value: "twitter.com"),
            URLFormField(name: "redirectUrl", value: Self.redirect),
            URLFormField(name: "resultChallenge", value: try PKCE.challenge(forVerifier: Self.verifier)),
        ]
        let refused = await ServiceSignInPickerTests.refusal { () throws(APIError) in
            _ = try await harness.flow.start(fields)
        }
        #expect(refused?.code == .providerError && refused?.status == 502, "\(String(describing: refused))")
        #expect(refused?.message.contains("oauth_callback_confirmed") == true)
    }

    // MARK: The TTLs come from the config

    /// The tests above decide expiry on the flow's settings; this checks that a running service takes them from
    /// `sessionTTLSeconds` and `resultTTLSeconds` (HTTP-API.md §2.1).
    @Test func aRunningServiceTakesBothTTLsFromItsConfig() async throws {
        let loopback = [ListenAddress(host: "127.0.0.1", port: 0)]
        let running = try await RunningService.start(
            config: AuthHandlerConfig(
                listen: loopback, store: .memory, sessionTTLSeconds: 7, resultTTLSeconds: 9),
            environment: SecretEnvironment(variables: [:]), log: EventLog(sink: DiscardingLogSink()),
            defaultStore: .memory)
        let settings = running.service.flow.settings
        await running.stop()
        #expect(settings.sessionTTL == .seconds(7))
        #expect(settings.resultTTL == .seconds(9))
    }
}
