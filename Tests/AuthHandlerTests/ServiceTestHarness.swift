import Foundation
import TestSupport

@testable import AuthHandlerCore
@testable import AuthHandlerCrypto
@testable import AuthHandlerHTTP
@testable import AuthHandlerStore
@testable import auth_handler

/// The service in process (docs/ARCHITECTURE.md "Routes"): a request in, a response out, through the same route table
/// the listener hands requests to, with no socket, no process and no clock but the test's.
struct InProcessService {
    static let redirect = "https://app.example.com/signed-in"
    static let challenge = "n4bQgYhMfWWaL-qgxVrQFaO_TxsrC4Is0V1sFbDwCgg"
    static let idp = "https://idp.example"

    let service: AuthHandlerService
    let http: ScriptedHTTP
    let store: any SessionStore & DeviceStore

    /// A service over a flow with an OIDC (`google.com`) and an OAuth 1.0a (`twitter.com`) provider at
    /// `https://idp.example`, whose calls `http` answers.
    init(
        http: ScriptedHTTP = ScriptedHTTP(), store: any SessionStore & DeviceStore = MemorySessionStore(),
        startRateLimit: StartRateLimit = .default, device: Bool = false, operationsApart: Bool = false,
        productName: String? = nil
    ) throws {
        var settings = SignInFlow.Settings(
            redirectURI: "https://auth.example.com/__/auth/handler",
            redirectPolicy: RedirectURLPolicy(allowed: [Self.redirect]), stateKeys: try StateKeyRing.random(),
            startRateLimit: startRateLimit, productName: productName)
        if device {
            settings.deviceAuthorization = DeviceAuthorizationConfig(
                enabled: true, providers: [], codeLifetimeSeconds: 600, intervalSeconds: 5)
        }
        let metrics = Metrics()
        let log = EventLog(sink: DiscardingLogSink())
        let flow = SignInFlow(
            settings: settings, providers: ProviderRegistry(descriptors: Self.descriptors()), store: store,
            backend: NoSignInBackend(), http: http, observer: SignInTelemetry(log: log, metrics: metrics))
        self.http = http
        self.store = store
        service = AuthHandlerService(
            flow: flow, store: store, metrics: metrics, log: log, operationsApart: operationsApart)
    }

    /// An OIDC provider (`google.com`) and an OAuth 1.0a one (`twitter.com`) at `https://idp.example`.
    static func descriptors() -> [ProviderDescriptor] {
        let url = { (path: String) in URL(string: Self.idp + path) }
        let oidc = ProviderDescriptor(
            id: "google.com", protocolKind: .oidc, isBuiltIn: true,
            endpoints: ProviderEndpoints(authorization: url("/authorize"), token: url("/token"), jwks: url("/jwks")),
            defaultScopes: ["openid"], clientID: "client", clientSecret: .fixed(Secret("s")), profileMapping: .oidc)
        let oauth1 = ProviderDescriptor(
            id: "twitter.com", protocolKind: .oauth1, isBuiltIn: true,
            endpoints: ProviderEndpoints(
                requestToken: url("/request_token"), authorize: url("/authorize"), accessToken: url("/access_token")),
            clientID: "key", clientSecret: .fixed(Secret("s")), profileMapping: .twitter)
        return [oidc, oauth1]
    }

    /// The answer to `method path?query`, with `form` as an `application/x-www-form-urlencoded` body, on `listener`.
    func send(
        _ method: String, _ path: String, query: [(String, String)] = [], form: [(String, String)]? = nil,
        headers: HTTPHeaders = [:], from address: String = "192.0.2.1:5000",
        on listener: AuthHandlerService.ListenerRole = .main
    ) async -> ServerResponse {
        let queryItems = query.map { URLFormField(name: $0.0, value: $0.1) }
        let formFields = (form ?? []).map { URLFormField(name: $0.0, value: $0.1) }
        var headers = headers
        if form != nil { headers.set(name: "Content-Type", value: "application/x-www-form-urlencoded") }
        let request = ServerRequest(
            method: method, path: path, rawQuery: FormURLEncoding.encode(queryItems), queryItems: queryItems,
            headers: headers, body: Array(FormURLEncoding.encode(formFields).utf8), formFields: formFields,
            remoteAddress: address)
        switch listener {
        case .main: return await service.handle(request)
        case .operations: return await service.handleOperations(request)
        }
    }

    /// A start's query for `provider`, with the app's redirect and challenge and `extra`.
    static func start(_ provider: String, _ extra: [(String, String)] = []) -> [(String, String)] {
        [("providerId", provider), ("redirectUrl", redirect), ("resultChallenge", challenge)] + extra
    }
}

extension ServerResponse {
    /// The body as UTF-8 text.
    var text: String { String(decoding: body, as: UTF8.self) }

    /// The `code` of a §3.5 JSON error body, or nil.
    var errorCode: String? { JSONValue.parse(body)?["error"]?["code"]?.stringValue }
}
