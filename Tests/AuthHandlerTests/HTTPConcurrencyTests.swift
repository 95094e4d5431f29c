import Foundation
import TestSupport
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP
@testable import auth_handler

struct HTTPConcurrencyTests {
    @Test("200 concurrent requests with a 200 ms handler finish in under 2 s")
    func twoHundredConcurrentRequestsWithASlowHandler() async throws {
        let server = try HTTPServer(listeningOn: ["127.0.0.1:0"]) { request in
            try? await Task.sleep(for: .milliseconds(200))
            return .text(request.path)
        }
        let client = try HTTPClient()
        let baseURL = server.baseURL
        let clock = ContinuousClock()
        let start = clock.now
        let paths = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<200 {
                group.addTask {
                    let response = try await client.send(
                        OutboundRequest(url: "\(baseURL)/r\(index)", timeout: .seconds(10)))
                    return response.status == 200
                        ? String(decoding: response.body, as: UTF8.self) : "status \(response.status)"
                }
            }
            var paths: Set<String> = []
            for try await path in group { paths.insert(path) }
            return paths
        }
        let elapsed = clock.now - start
        #expect(paths == Set((0..<200).map { "/r\($0)" }))
        #expect(elapsed < .seconds(2), "took \(elapsed)")
        // Every request slept 200 ms: a serial server would need 40 s.
        #expect(elapsed >= .milliseconds(200))
        await server.stop()
    }
}

/// Throughput probe, off by default: `HTTP_BENCH=1 swift test --filter HTTPThroughputProbe` runs `wrk`
/// against a 302 handler and prints its report (the figure goes into the field notes, not into an assertion).
struct HTTPThroughputProbe {
    @Test(.enabled(if: ProcessInfo.processInfo.environment["HTTP_BENCH"] != nil))
    func wrkAgainstARedirectHandler() async throws {
        let server = try HTTPServer(listeningOn: ["127.0.0.1:0"]) { _ in
            .redirect(to: "https://app.example.com/done")
        }
        try await withCleanup({ await server.stop() }) {
            let wrk = try TestProcess(
                "/usr/bin/wrk", ["-t2", "-c64", "-d5s", "--latency", "\(server.baseURL)/"], package: "wrk")
            _ = await wrk.exitCode()
            print(wrk.standardOutput)
            #expect(wrk.standardOutput.contains("Requests/sec"))
        }
    }
}
