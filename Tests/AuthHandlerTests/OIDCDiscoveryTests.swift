import Foundation
import TestSupport
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP
@testable import AuthHandlerProtocols
@testable import auth_handler

struct OIDCDiscoveryTests {
    static let issuer = "https://login.corp.example"
    static let url = issuer + "/.well-known/openid-configuration"

    static func document(issuer: String = issuer, _ changes: [String: JSONValue?] = [:]) -> JSONValue {
        var members: [String: JSONValue] = [
            "issuer": .string(issuer),
            "authorization_endpoint": .string(issuer + "/authorize"),
            "token_endpoint": .string(issuer + "/token"),
            "userinfo_endpoint": .string(issuer + "/userinfo"),
            "jwks_uri": .string(issuer + "/jwks"),
            "response_modes_supported": .array([.string("query"), .string("form_post")]),
            "code_challenge_methods_supported": .array([.string("S256")]),
            "id_token_signing_alg_values_supported": .array([.string("RS256")]),
            "authorization_response_iss_parameter_supported": .bool(true),
            "token_endpoint_auth_methods_supported": .array([.string("client_secret_basic")]),
            "claims_supported": .array([.string("sub")]),
        ]
        for (name, value) in changes { members[name] = value }
        return .object(members)
    }

    @Test func fetchesAndDecodesTheDocument() async throws {
        let http = ScriptedHTTP()
        http.serve(Self.url, json: Self.document())
        let metadata = try await OIDCDiscovery(http: http).metadata(for: Self.issuer)
        #expect(metadata.issuer == Self.issuer)
        #expect(metadata.authorizationEndpoint == Self.issuer + "/authorize")
        #expect(metadata.tokenEndpoint == Self.issuer + "/token")
        #expect(metadata.userinfoEndpoint == Self.issuer + "/userinfo")
        #expect(metadata.jwksURI == Self.issuer + "/jwks")
        #expect(metadata.responseModesSupported == ["query", "form_post"])
        #expect(metadata.codeChallengeMethodsSupported == ["S256"])
        #expect(metadata.idTokenSigningAlgValuesSupported == ["RS256"])
        #expect(metadata.authorizationResponseIssParameterSupported == true)
        #expect(metadata.tokenEndpointAuthMethodsSupported == ["client_secret_basic"])
        #expect(metadata.supportsS256 == true)
    }

    @Test func trailingSlashIsRemovedBeforeTheWellKnownPathButIssuerStillComparesExactly() async throws {
        let http = ScriptedHTTP()
        http.serve(Self.url, json: Self.document(issuer: Self.issuer + "/"))
        let metadata = try await OIDCDiscovery(http: http).metadata(for: Self.issuer + "/")
        #expect(metadata.issuer == Self.issuer + "/")
        #expect(http.fetchCount(Self.url) == 1)
    }

    @Test func issuerMismatchIsRefused() async {
        let http = ScriptedHTTP()
        http.serve(Self.url, json: Self.document(issuer: Self.issuer + "/"))
        let error = await oidcError { () async throws(OIDCError) in
            try await OIDCDiscovery(http: http).metadata(for: Self.issuer)
        }
        #expect(error == .discoveryIssuerMismatch(expected: Self.issuer, received: Self.issuer + "/"))
    }

    @Test func documentIssuerTemplateIsAcceptedWhenConfigured() async throws {
        let common = "https://login.microsoftonline.com/common/v2.0"
        let template = "https://login.microsoftonline.com/{tenantid}/v2.0"
        let http = ScriptedHTTP()
        http.serve(
            common + "/.well-known/openid-configuration",
            json: Self.document(
                issuer: template,
                ["authorization_endpoint": .string(common + "/authorize"), "jwks_uri": .string(common + "/keys")]))
        let discovery = OIDCDiscovery(http: http)
        let metadata = try await discovery.metadata(for: common, documentIssuer: template)
        #expect(metadata.issuer == template)
        let error = await oidcError { () async throws(OIDCError) in try await discovery.metadata(for: common) }
        #expect(error == .discoveryIssuerMismatch(expected: common, received: template))
    }

    @Test(arguments: ["authorization_endpoint", "token_endpoint", "userinfo_endpoint", "jwks_uri"])
    func plainHTTPEndpointOnANonLoopbackHostIsRefused(field: String) async {
        let http = ScriptedHTTP()
        http.serve(Self.url, json: Self.document([field: .string("http://login.corp.example/x?secret=1")]))
        let error = await oidcError { () async throws(OIDCError) in
            try await OIDCDiscovery(http: http).metadata(for: Self.issuer)
        }
        #expect(error == .insecureURL(field: field, url: "http://login.corp.example/x"))
        #expect(error?.description.contains("secret") == false)
    }

    @Test func plainHTTPIssuerIsRefusedWithoutAFetch() async {
        let http = ScriptedHTTP()
        let error = await oidcError { () async throws(OIDCError) in
            try await OIDCDiscovery(http: http).metadata(for: "http://login.corp.example")
        }
        #expect(error == .insecureURL(field: "issuer", url: "http://login.corp.example"))
        #expect(http.fetchCount("http://login.corp.example/.well-known/openid-configuration") == 0)
    }

    @Test(arguments: ["http://127.0.0.1:8443/oidc", "http://[::1]:8443/oidc", "http://localhost:8443/oidc"])
    func loopbackHTTPIsAccepted(issuer: String) async throws {
        let http = ScriptedHTTP()
        http.serve(issuer + "/.well-known/openid-configuration", json: Self.document(issuer: issuer))
        let metadata = try await OIDCDiscovery(http: http).metadata(for: issuer)
        #expect(metadata.jwksURI == issuer + "/jwks")
    }

    @Test func nonOKStatusIsReported() async {
        let http = ScriptedHTTP()
        http.serve(Self.url, OutboundResponse(status: 503))
        let error = await oidcError { () async throws(OIDCError) in
            try await OIDCDiscovery(http: http).metadata(for: Self.issuer)
        }
        #expect(error == .unexpectedStatus(.discovery, url: Self.url, status: 503))
        #expect(error?.description.contains("HTTP 503") == true)
    }

    @Test func missingRequiredMemberIsNamed() async {
        let http = ScriptedHTTP()
        http.serve(Self.url, json: Self.document(["jwks_uri": nil]))
        let error = await oidcError { () async throws(OIDCError) in
            try await OIDCDiscovery(http: http).metadata(for: Self.issuer)
        }
        #expect(
            error
                == .malformedDocument(.discovery, url: Self.url, reason: "the required member \"jwks_uri\" is missing"))
    }

    @Test func wrongTypedMemberIsNamed() async {
        let http = ScriptedHTTP()
        http.serve(Self.url, json: Self.document(["token_endpoint": .number(1)]))
        let error = await oidcError { () async throws(OIDCError) in
            try await OIDCDiscovery(http: http).metadata(for: Self.issuer)
        }
        #expect(
            error
                == .malformedDocument(
                    .discovery, url: Self.url, reason: "the member \"token_endpoint\" has the wrong type"))
    }

    @Test func notJSONIsRefused() async {
        let http = ScriptedHTTP()
        http.serve(Self.url, OutboundResponse(status: 200, body: Array("<html>".utf8)))
        let error = await oidcError { () async throws(OIDCError) in
            try await OIDCDiscovery(http: http).metadata(for: Self.issuer)
        }
        #expect(error == .malformedDocument(.discovery, url: Self.url, reason: "not a JSON object"))
    }

    @Test func cacheIsUsedWithinTheTimeToLiveAndRefreshedAfter() async throws {
        let http = ScriptedHTTP()
        http.serve(Self.url, json: Self.document())
        let clock = TestClock()
        let discovery = OIDCDiscovery(http: http, timeToLive: 3600, now: clock.read)
        _ = try await discovery.metadata(for: Self.issuer)
        clock.advance(by: 3599)
        _ = try await discovery.metadata(for: Self.issuer)
        #expect(http.fetchCount(Self.url) == 1)
        clock.advance(by: 1)
        _ = try await discovery.metadata(for: Self.issuer)
        #expect(http.fetchCount(Self.url) == 2)
    }

    @Test func aFailureIsRememberedForTheFailureTTLThenFetchedAgainOnce() async throws {
        let http = ScriptedHTTP()
        http.serve(Self.url, OutboundResponse(status: 500))
        let clock = TestClock()
        let discovery = OIDCDiscovery(http: http, failureTTL: 30, now: clock.read)
        let expected = OIDCError.unexpectedStatus(.discovery, url: Self.url, status: 500)
        let first = await oidcError { () async throws(OIDCError) in try await discovery.metadata(for: Self.issuer) }
        #expect(first == expected)
        #expect(await discovery.isCached(issuer: Self.issuer))

        // The provider recovers, but within the window the remembered error is thrown without a fetch.
        http.serve(Self.url, json: Self.document())
        clock.advance(by: 29)
        for _ in 0..<3 {
            let again = await oidcError { () async throws(OIDCError) in
                try await discovery.metadata(for: Self.issuer)
            }
            #expect(again == expected)
        }
        #expect(http.fetchCount(Self.url) == 1)

        clock.advance(by: 1)
        #expect(await !discovery.isCached(issuer: Self.issuer))
        _ = try await discovery.metadata(for: Self.issuer)
        _ = try await discovery.metadata(for: Self.issuer)
        #expect(http.fetchCount(Self.url) == 2)
        #expect(await discovery.isCached(issuer: Self.issuer))
    }

    @Test func aFailureIsRememberedPerIssuer() async throws {
        let other = "https://other.example"
        let http = ScriptedHTTP()
        http.serve(Self.url, OutboundResponse(status: 500))
        http.serve(other + "/.well-known/openid-configuration", json: Self.document(issuer: other))
        let clock = TestClock()
        let discovery = OIDCDiscovery(http: http, now: clock.read)
        _ = await oidcError { () async throws(OIDCError) in try await discovery.metadata(for: Self.issuer) }
        _ = try await discovery.metadata(for: other)
        #expect(http.fetchCount(other + "/.well-known/openid-configuration") == 1)
    }

    @Test func isCachedFollowsTheDocumentTimeToLive() async throws {
        let http = ScriptedHTTP()
        http.serve(Self.url, json: Self.document())
        let clock = TestClock()
        let discovery = OIDCDiscovery(http: http, timeToLive: 60, now: clock.read)
        #expect(await !discovery.isCached(issuer: Self.issuer))
        _ = try await discovery.metadata(for: Self.issuer)
        #expect(await discovery.isCached(issuer: Self.issuer))
        #expect(await !discovery.isCached(issuer: Self.issuer, documentIssuer: "https://elsewhere.example"))
        clock.advance(by: 60)
        #expect(await !discovery.isCached(issuer: Self.issuer))
    }

    @Test func removeAllForgetsFailuresToo() async throws {
        let http = ScriptedHTTP()
        http.serve(Self.url, OutboundResponse(status: 500))
        let discovery = OIDCDiscovery(http: http)
        _ = await oidcError { () async throws(OIDCError) in try await discovery.metadata(for: Self.issuer) }
        http.serve(Self.url, json: Self.document())
        await discovery.removeAll()
        _ = try await discovery.metadata(for: Self.issuer)
        #expect(http.fetchCount(Self.url) == 2)
    }

    @Test(.timeLimit(.minutes(1))) func concurrentFirstRequestsShareOneFetch() async throws {
        let gate = TestGate()
        let http = ScriptedHTTP(gate: gate)
        http.serve(Self.url, json: Self.document())
        let clock = TestClock()
        // A zero TTL: without coalescing every caller would fetch, even one arriving after the first fetch.
        let discovery = OIDCDiscovery(http: http, timeToLive: 0, now: clock.read)
        let callers = 8
        let allArrived = clock.gate(afterReads: callers)
        try await withThrowingTaskGroup(of: OIDCProviderMetadata.self) { group in
            for _ in 0..<callers {
                group.addTask { try await discovery.metadata(for: Self.issuer) }
            }
            await allArrived.wait()
            gate.open()
            for try await metadata in group { #expect(metadata.issuer == Self.issuer) }
        }
        #expect(http.fetchCount(Self.url) == 1)
    }
}
