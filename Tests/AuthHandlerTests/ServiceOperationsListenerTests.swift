import Foundation
import TestSupport
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP
@testable import auth_handler

/// The operations listener (`opsListen`, docs/CONFIG.md) of an in-process ``RunningService``.
@Suite(.timeLimit(.minutes(1)))
struct ServiceOperationsListenerTests {
    static let loopback = [ListenAddress(host: "127.0.0.1", port: 0)]

    static func start(extraRoutes: [String: AuthHandlerService.ExtraRoute] = [:]) async throws -> RunningService {
        try await RunningService.start(
            config: AuthHandlerConfig(listen: loopback, opsListen: loopback, store: .memory),
            environment: SecretEnvironment(variables: [:]), log: EventLog(sink: CapturingLogSink()),
            defaultStore: .memory, extraRoutes: extraRoutes)
    }

    @Test func theOperationsListenerShowsTheDrainAndStopsAfterTheMainListener() async throws {
        let entered = TestGate()
        let release = TestGate()
        let running = try await Self.start(extraRoutes: [
            "/hold": { _, _ in
                entered.open()
                await release.wait()
                return .text("held\n")
            }
        ])
        let opsURL = try #require(running.opsBaseURL)
        let client = try HTTPClient()
        let held = Task { try await client.send(OutboundRequest(url: running.baseURL + "/hold")) }
        await entered.wait()
        #expect(try await client.send(OutboundRequest(url: opsURL + "/readyz")).status == 200)

        let stopping = Task { await running.stop() }
        // While the main listener drains (a request is held in it), the operations listener still answers: /readyz
        // turns 503 there. Each try is a real request, so this waits on answers, not on a clock.
        var readiness = 200
        for _ in 0..<2000 where readiness == 200 {
            readiness = try await client.send(OutboundRequest(url: opsURL + "/readyz")).status
        }
        #expect(readiness == 503)
        #expect(try await client.send(OutboundRequest(url: opsURL + "/metrics")).status == 200)

        release.open()
        #expect(try await held.value.status == 200)
        await stopping.value
        await #expect(throws: (any Error).self) {
            _ = try await client.send(OutboundRequest(url: opsURL + "/healthz", timeout: .seconds(2)))
        }
    }

    @Test func eachListenerServesOnlyItsOwnPaths() async throws {
        let running = try await Self.start()
        let opsURL = try #require(running.opsBaseURL)
        let client = try HTTPClient()
        let json: HTTPHeaders = ["Accept": "application/json"]
        for path in ["/healthz", "/readyz", "/metrics"] {
            #expect(try await client.send(OutboundRequest(url: opsURL + path)).status == 200, "\(path)")
            let main = try await client.send(OutboundRequest(url: running.baseURL + path, headers: json))
            #expect(main.status == 404, "\(path)")
            #expect(JSONValue.parse(main.body)?["error"]?["code"] == .string("not-found"))
        }
        for path in ["/__/auth/handler?providerId=github.com", "/__/auth/result", "/", "/hold"] {
            let ops = try await client.send(OutboundRequest(url: opsURL + path, headers: json))
            #expect(ops.status == 404, "\(path)")
            #expect(ops.headers["X-Frame-Options"] == "DENY")
        }
        await running.stop()
    }
}
