import Foundation
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP
@testable import AuthHandlerProtocols
@testable import auth_handler

/// A start answered on the listener's thread (``SignInFlow/startImmediately(_:cookieHeaders:fetchMetadata:)`` and
/// ``AuthHandlerService/answerAtOnce(_:)``): taken only when nothing has to wait, and then the same answer as the
/// async start.
struct FlowStartImmediatelyTests {
    typealias Harness = FlowSignInFlowTests.Harness
    static let discoveryURL = FlowSignInFlowTests.issuer + "/.well-known/openid-configuration"

    static func fields(_ provider: String, _ extra: [(String, String)] = []) throws -> [URLFormField] {
        let challenge = try PKCE.challenge(forVerifier: FlowSignInFlowTests.verifier)
        return
            ([("providerId", provider), ("redirectUrl", FlowSignInFlowTests.redirect), ("resultChallenge", challenge)]
            + extra).map { URLFormField(name: $0.0, value: $0.1) }
    }

    @Test func aStartThatNeedsDiscoveryIsLeftToTheAsyncStartWhichStillWorks() async throws {
        let harness = try Harness()
        #expect(harness.flow.startImmediately(try Self.fields("oidc.test")) == nil)
        #expect(harness.http.fetchCount(Self.discoveryURL) == 0)
        let started = try await harness.flow.start(try Self.fields("oidc.test"))
        #expect(harness.http.fetchCount(Self.discoveryURL) == 1)
        #expect(started.location.hasPrefix(FlowSignInFlowTests.issuer + "/authorize?"))
    }

    @Test func anOAuth1StartIsLeftToTheAsyncStart() async throws {
        let harness = try Harness()
        #expect(harness.flow.startImmediately(try Self.fields("twitter.com")) == nil)
        #expect(harness.http.fetchCount(FlowSignInFlowTests.requestTokenURL) == 0)
    }

    @Test func aStartWithDiscoveryCachedIsAnsweredAtOnceAndItsCookieCompletesTheSignIn() async throws {
        let harness = try Harness()
        _ = try await harness.flow.start(try Self.fields("oidc.test"))
        let outcome = try #require(harness.flow.startImmediately(try Self.fields("oidc.test")))
        let started = try outcome.get()
        #expect(harness.http.fetchCount(Self.discoveryURL) == 1)
        let query = FlowSignInFlowTests.query(started.location)
        #expect(started.location.hasPrefix(FlowSignInFlowTests.issuer + "/authorize?"))
        #expect(query.first(named: "nonce") != nil)
        #expect(query.first(named: "code_challenge_method") == "S256")
        #expect(started.setCookie.contains("Max-Age=\(FlowSignInFlowTests.sessionTTL.components.seconds)"))
        try harness.serveToken(for: started)
        let code = try #require(FlowSignInFlowTests.resultCode(try await harness.approve(started)))
        let answer = try await harness.redeem(code)
        #expect(answer.providerId == "oidc.test")
        #expect(answer.profile.id == FlowSignInFlowTests.subject)
    }

    @Test func theImmediateStartRefusesWhatTheAsyncStartRefusesInTheSameOrder() async throws {
        let harness = try Harness()
        _ = try await harness.flow.start(try Self.fields("oidc.test"))
        let image = FetchMetadata(mode: "no-cors", destination: "image")
        // Not a navigation comes first, even with an unknown provider.
        let refusals: [([URLFormField], FetchMetadata, APIError.Code)] = [
            (try Self.fields("nobody"), image, .navigationRequired),
            (try Self.fields("nobody"), FetchMetadata(), .invalidProvider),
            (try Self.fields("oidc.test", [("authType", "other")]), FetchMetadata(), .unsupportedAuthType),
        ]
        for (fields, metadata, code) in refusals {
            let outcome = try #require(harness.flow.startImmediately(fields, fetchMetadata: metadata))
            #expect(throws: APIError.self) { try outcome.get() }
            if case .failure(let error) = outcome { #expect(error.code == code) }
            await #expect(throws: APIError.self) {
                _ = try await harness.flow.start(fields, fetchMetadata: metadata)
            }
        }
    }

    @Test func theServiceAnswersACachedStartOnTheListenersThreadAndTheRestThroughHandle() async throws {
        let harness = try Harness()
        let metrics = Metrics()
        let service = AuthHandlerService(
            flow: harness.flow, store: harness.store, metrics: metrics, log: EventLog(sink: DiscardingLogSink()))
        let fields = try Self.fields("oidc.test")
        let request = ServerRequest(
            method: "GET", path: "/__/auth/handler", rawQuery: FormURLEncoding.encode(fields), queryItems: fields,
            headers: ["Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"], remoteAddress: "127.0.0.1:5000")
        #expect(service.answerAtOnce(request) == nil)
        let first = await service.handle(request)
        #expect(first.status == 302)
        let immediate = try #require(service.answerAtOnce(request))
        #expect(immediate.status == 302)
        #expect(immediate.headers["Location"]?.hasPrefix(FlowSignInFlowTests.issuer + "/authorize?") == true)
        #expect(immediate.headers.values(for: "Set-Cookie").count == 1)
        #expect(immediate.headers["Content-Security-Policy"] == first.headers["Content-Security-Policy"])
        #expect(metrics.render().contains(#"route="/__/auth/handler""#))
        // A callback and a POST are never answered at once.
        var callback = request
        callback.queryItems = [URLFormField(name: "state", value: "s"), URLFormField(name: "code", value: "c")]
        #expect(service.answerAtOnce(callback) == nil)
        var post = request
        post.method = "POST"
        #expect(service.answerAtOnce(post) == nil)
    }
}
