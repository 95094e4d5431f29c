import AuthHandlerCore
import AuthHandlerHTTP
import Foundation

/// A strict fake identity provider and sign-in backend on loopback, for tests (HTTP-API.md §4).
///
/// OAuth 1.0a under `/oauth1/`, OAuth 2 / OIDC under `/oidc/`, Identity Toolkit's `accounts:signInWithIdp`
/// under `/identitytoolkit/v1/`, and a control API under `/__fake/`. Start it with `start(...)`, read
/// `baseURL`, stop it with `stop()`.
package final class FakeIdP: Sendable {
    /// `http://HOST:PORT`, the bound address.
    package let baseURL: String
    /// The OIDC issuer: `baseURL + "/oidc"`.
    package var issuer: String { baseURL + "/oidc" }
    let state: FakeIdPState
    private let server: HTTPServer
    private let router: FakeIdPRouter

    private init(baseURL: String, state: FakeIdPState, server: HTTPServer, router: FakeIdPRouter) {
        self.baseURL = baseURL
        self.state = state
        self.server = server
        self.router = router
    }

    /// Binds `host:port` (port 0 picks a free one) and starts serving.
    package static func start(
        host: String = "127.0.0.1", port: UInt16 = 0, configuration: FakeIdPConfiguration = .defaults
    ) throws -> FakeIdP {
        let state = try FakeIdPState(configuration: configuration)
        let router = FakeIdPRouter(state: state)
        // Every client of a fake IdP is on loopback, one address: the browser, the handler's token calls, a test's
        // or benchmark's hundreds of flows. A per-address connection limit would refuse them, so there is none.
        var serverConfiguration = HTTPServerConfiguration()
        serverConfiguration.perIPConnectionLimit = 0
        let server = try HTTPServer(
            listeningOn: [ListenAddress(host: host, port: port)], configuration: serverConfiguration
        ) { request in
            await router.handle(request)
        }
        let address = server.addresses[0]
        let baseURL = "http://\(address)"
        router.setBaseURL(baseURL)
        return FakeIdP(baseURL: baseURL, state: state, server: server, router: router)
    }

    /// Stops accepting and lets requests in flight finish.
    package func stop() async {
        await server.stop(gracePeriod: .seconds(2))
    }

    /// Queues `failure` for the next `failure.count` calls of its endpoint.
    package func queue(_ failure: FakeFailure) async {
        await state.queue(failure)
    }

    /// Failures queued and not yet used up.
    package func pendingFailures() async -> [FakeFailure] {
        await state.pendingFailures()
    }

    /// Every request received so far (control API calls excluded), oldest first.
    package func requests() async -> [FakeRecordedRequest] {
        await state.recordedRequests()
    }

    /// Moves the fake IdP's clock forward (to expire codes, tokens and timestamps without waiting).
    package func advanceClock(seconds: Double) async {
        await state.advanceClock(seconds: seconds)
    }

    /// Forgets queued failures and recorded requests.
    package func reset() async {
        await state.reset()
    }
}
