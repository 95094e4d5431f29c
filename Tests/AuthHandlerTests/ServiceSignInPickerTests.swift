import Foundation
import TestSupport
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerCrypto
@testable import AuthHandlerHTTP
@testable import AuthHandlerStore
@testable import auth_handler

/// The sign-in picker, `GET /__/auth/signin` (HTTP-API.md §3.6), in process: its buttons, and that it refuses exactly
/// what a start refuses.
struct ServiceSignInPickerTests {
    static let redirect = InProcessService.redirect
    static let challenge = InProcessService.challenge

    /// A flow with an OIDC, an OAuth 1.0a and a custom provider whose name needs escaping; no provider is ever called.
    static func flow(productName: String? = "Acme", descriptors: [ProviderDescriptor]? = nil) throws -> SignInFlow {
        let url = { (path: String) in URL(string: "https://idp.example\(path)") }
        let custom = ProviderDescriptor(
            id: "oidc.corp", protocolKind: .oidc,
            endpoints: ProviderEndpoints(authorization: url("/authorize"), token: url("/token"), jwks: url("/jwks")),
            clientID: "client", clientSecret: .fixed(Secret("s")), profileMapping: .oidc,
            displayName: #"<b>"Corp" & 'Co'</b>"#)
        let settings = SignInFlow.Settings(
            redirectURI: "https://auth.example.com/__/auth/handler",
            redirectPolicy: RedirectURLPolicy(allowed: [redirect]), stateKeys: try StateKeyRing.random(),
            productName: productName)
        return SignInFlow(
            settings: settings,
            providers: ProviderRegistry(descriptors: descriptors ?? InProcessService.descriptors() + [custom]),
            store: MemorySessionStore(), backend: NoSignInBackend(), http: ScriptedHTTP([]),
            observer: SignInTelemetry(log: EventLog(sink: DiscardingLogSink()), metrics: Metrics()))
    }

    /// Query fields from `pairs`, in order.
    static func fields(_ pairs: [(String, String)]) -> [URLFormField] {
        pairs.map { URLFormField(name: $0.0, value: $0.1) }
    }

    /// A valid picker request's fields, plus `extra`.
    static func request(_ extra: [(String, String)] = []) -> [URLFormField] {
        fields([("redirectUrl", redirect), ("eventId", "e1"), ("resultChallenge", challenge)] + extra)
    }

    /// The error `work` throws, or nil.
    static func refusal(_ work: () async throws(APIError) -> Void) async -> APIError? {
        do {
            try await work()
            return nil
        } catch {
            return error
        }
    }

    @Test func offersEveryConfiguredProviderByNameWithTheStartsParameters() throws {
        let choices = try Self.flow().pickerChoices(
            Self.request([
                ("scopes", "email"), ("customParameters", #"{"login_hint":"a@b.c"}"#), ("foo", "bar"),
                ("resultDelivery", "fragment"),
            ]))
        // Ordered by name: "<b>…" sorts before "Google" and "X (Twitter)".
        #expect(choices.map(\.providerID) == ["oidc.corp", "google.com", "twitter.com"])
        #expect(choices.map(\.displayName) == [#"<b>"Corp" & 'Co'</b>"#, "Google", "X (Twitter)"])
        for choice in choices {
            let carried = try FormURLEncoding.decode(choice.startQuery)
            #expect(
                carried
                    == Self.fields([
                        ("providerId", choice.providerID), ("redirectUrl", Self.redirect), ("eventId", "e1"),
                        ("resultChallenge", Self.challenge), ("scopes", "email"),
                        ("customParameters", #"{"login_hint":"a@b.c"}"#), ("resultDelivery", "fragment"),
                    ]))
        }
    }

    @Test func aSubsetKeepsItsOrderAndListsEachOnce() throws {
        let choices = try Self.flow().pickerChoices(Self.request([("providers", "twitter.com,google.com,twitter.com")]))
        #expect(choices.map(\.providerID) == ["twitter.com", "google.com"])
        #expect(choices.allSatisfy { !$0.startQuery.contains("providers=") })
    }

    @Test func eachButtonsStartIsOneTheStartAccepts() async throws {
        let flow = try Self.flow()
        let choice = try #require(
            try flow.pickerChoices(Self.request([("providers", "google.com")])).first)
        let answer = try await flow.start(try FormURLEncoding.decode(choice.startQuery))
        #expect(answer.location.hasPrefix("https://idp.example/authorize?"))
    }

    /// Requests a start refuses; the picker must refuse each the same way (status, code and message).
    static let badRequests: [[(String, String)]] = [
        [("eventId", "e1")],
        [("redirectUrl", "https://evil.example/"), ("resultChallenge", challenge)],
        [("redirectUrl", redirect), ("resultChallenge", challenge), ("redirectUrl", redirect)],
        [("redirectUrl", redirect), ("resultChallenge", challenge), ("authType", "popup")],
        [("redirectUrl", redirect), ("resultChallenge", challenge), ("eventId", String(repeating: "e", count: 513))],
        [("redirectUrl", redirect), ("resultChallenge", challenge), ("eventId", "a\u{7}")],
        [("redirectUrl", redirect), ("resultChallenge", challenge), ("scopes", "a\"b")],
        [("redirectUrl", redirect), ("resultChallenge", challenge), ("customParameters", "[1]")],
        [("redirectUrl", redirect), ("resultChallenge", challenge), ("customParameters", #"{"state":"x"}"#)],
        [("redirectUrl", redirect), ("resultChallenge", challenge), ("customParameters", #"{"a b":"x"}"#)],
        [("redirectUrl", redirect), ("resultChallenge", challenge), ("resultDelivery", "hash")],
        [
            ("redirectUrl", redirect), ("resultChallenge", challenge), ("resultDelivery", "query"),
            ("resultDelivery", "query"),
        ],
        [("redirectUrl", redirect)],
        [("redirectUrl", redirect), ("resultChallenge", "short")],
        // Valid scopes, but a pending sign-in too large for its cookie.
        [
            ("redirectUrl", redirect), ("resultChallenge", challenge),
            ("scopes", (0..<60).map { "scope-\($0)-" + String(repeating: "s", count: 56) }.joined(separator: ",")),
        ],
    ]

    @Test(arguments: badRequests.indices)
    func refusesWhatTheStartRefusesWithTheStartsError(index: Int) async throws {
        let flow = try Self.flow()
        let given = Self.fields(Self.badRequests[index])
        let start = await Self.refusal { () async throws(APIError) in
            _ = try await flow.start(Self.fields([("providerId", "google.com")]) + given)
        }
        let picker = await Self.refusal { () async throws(APIError) in
            _ = try flow.pickerChoices(Self.fields([("providers", "google.com")]) + given)
        }
        let expected = try #require(start, "the start accepted \(Self.badRequests[index])")
        #expect(picker?.code == expected.code, "\(Self.badRequests[index])")
        #expect(picker?.status == expected.status)
        #expect(picker?.message == expected.message)
    }

    @Test func aParameterReservedForOneOfferedProvidersProtocolRefusesThePage() async throws {
        let flow = try Self.flow()
        let oauth1Only = ("customParameters", #"{"oauth_callback":"x"}"#)
        let refused = await Self.refusal { () async throws(APIError) in
            _ = try flow.pickerChoices(Self.request([oauth1Only]))
        }
        #expect(refused?.code == .reservedCustomParameter)
        #expect(refused?.message.contains("oauth_callback") == true)
        #expect(try flow.pickerChoices(Self.request([oauth1Only, ("providers", "google.com")])).count == 1)
    }

    @Test func refusesWhatOnlyThePickerRefuses() async throws {
        let flow = try Self.flow()
        let cases: [([(String, String)], APIError.Code, String)] = [
            ([("providerId", "google.com")], .invalidRequest, "leave providerId out"),
            ([("providers", "google.com"), ("providers", "twitter.com")], .invalidRequest, "more than once"),
            ([("providers", "google.com,,twitter.com")], .invalidRequest, "empty entry"),
            ([("providers", "")], .invalidRequest, "empty entry"),
            ([("providers", "google.com,nope.example")], .invalidProvider, "'nope.example' is not a configured"),
        ]
        for (extra, code, words) in cases {
            let refused = await Self.refusal { () async throws(APIError) in
                _ = try flow.pickerChoices(Self.request(extra))
            }
            #expect(refused?.code == code, "\(extra)")
            #expect(refused?.message.contains(words) == true, "\(extra): \(refused?.message ?? "accepted")")
        }
        let unknown = await Self.refusal { () async throws(APIError) in
            _ = try await flow.start(Self.fields([("providerId", "nope.example")]) + Self.request())
        }
        let pickerUnknown = await Self.refusal { () async throws(APIError) in
            _ = try flow.pickerChoices(Self.request([("providers", "nope.example")]))
        }
        #expect(pickerUnknown?.message == unknown?.message)
        let unconfigured = try Self.flow(descriptors: [])
        let empty = await Self.refusal { () async throws(APIError) in
            _ = try unconfigured.pickerChoices(Self.request())
        }
        #expect(empty?.code == .invalidProvider)
    }

    @Test func thePageEscapesEverythingAndCarriesEachStartInItsLink() throws {
        let flow = try Self.flow(productName: "<i>Acme</i>")
        let choices = try flow.pickerChoices(
            Self.request([("scopes", "a,b"), ("customParameters", #"{"x":"\"><script>alert(1)</script>"}"#)]))
        let html = SignInPickerPage.render(choices, audience: PageAudience(productName: "<i>Acme</i>", starter: .app))
        #expect(!html.contains("<script>") && !html.contains("<b>") && !html.contains("<i>"))
        #expect(html.contains("<title>Sign in to &lt;i&gt;Acme&lt;/i&gt;</title>"))
        #expect(html.contains("<h1>Sign in to &lt;i&gt;Acme&lt;/i&gt;</h1>"))
        #expect(html.contains("Continue with &lt;b&gt;&quot;Corp&quot; &amp; &#39;Co&#39;&lt;/b&gt;</a>"))
        for choice in choices {
            let link =
                #"<a class="choice" data-provider-id="\#(choice.providerID)" "#
                + #"href="handler?\#(choice.startQuery.replacingOccurrences(of: "&", with: "&amp;"))">"#
            #expect(html.contains(link), "\(link)")
        }
    }
}
