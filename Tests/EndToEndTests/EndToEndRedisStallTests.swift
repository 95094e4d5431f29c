import AuthHandlerCore
import AuthHandlerHTTP
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A Redis that stops answering (`kill -STOP`) under a running `serve` (docs/CONFIG.md `store`,
/// `commandTimeoutSeconds`): `/readyz` answers at once from the connection's last known state and turns 503 within
/// about one command timeout, and every callback waiting on the store gets its 503 within one command timeout, however
/// many are queued. Real processes throughout: `serve`, `fake-idp` and `redis-server`, which every path resumes
/// (SIGCONT) and kills.
///
/// `make test` runs this suite on its own: it asserts wall-clock bounds.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct EndToEndRedisStallTests {
    /// `store.commandTimeoutSeconds` of the instance under test.
    static let commandTimeoutSeconds = 1
    /// The bound on every answer while Redis is stopped: the command timeout and 0.5 s.
    static let bound: Duration = .seconds(commandTimeoutSeconds) + .milliseconds(500)

    @Test("Redis stopped: 10 concurrent /readyz answer within the command timeout + 0.5 s, then 503; resumed: 200")
    func readinessAnswersAtOnceWhileRedisIsStopped() async throws {
        try await Self.withSignedInInstance { cluster, url in

            cluster.redis.signal(SIGSTOP)
            defer { cluster.redis.signal(SIGCONT) }
            let clock = ContinuousClock()
            let stopped = clock.now
            let answers = try await Self.concurrently(10) { _ in
                try await cluster.client.send(OutboundRequest(method: "GET", url: url + "/readyz"))
            }
            for (response, elapsed) in answers {
                #expect(elapsed < Self.bound, "/readyz took \(elapsed) while Redis was stopped")
                #expect([200, 503].contains(response.status), "\(response.status) \(response.text)")
            }
            // Soon after, 503: the probe's PING got no reply within the command timeout. Asked every 50 ms, bounded.
            var status = 0
            while clock.now - stopped < .seconds(10) {
                let began = clock.now
                status = try await cluster.client.send(OutboundRequest(method: "GET", url: url + "/readyz")).status
                #expect(clock.now - began < Self.bound)
                if status == 503 { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(status == 503)
            let turned = clock.now - stopped
            #expect(turned < .seconds(2 * Self.commandTimeoutSeconds) + .milliseconds(500), "503 after \(turned)")

            cluster.redis.signal(SIGCONT)
            // Resumed: ready again once the connection is back (attempts back off 2 s at most).
            #expect(try await Self.readinessOnceResumed(cluster) == [200])
        }
    }

    @Test("Redis stopped: 10 concurrent callbacks all answer 503 within the command timeout + 0.5 s")
    func callbacksAnswer503WithinTheCommandTimeout() async throws {
        try await Self.withSignedInInstance { cluster, url in
            // Ten sign-ins started (a start touches no store), each in a browser of its own, callbacks not delivered.
            var pending: [(browser: ScaleOutBrowser, callback: ScaleOutBrowser.Callback)] = []
            for index in 0..<10 {
                let browser = cluster.browser()
                pending.append((browser, try await browser.start("google.com", eventID: "stall-\(index)", at: url)))
            }
            let flows = pending

            cluster.redis.signal(SIGSTOP)
            defer { cluster.redis.signal(SIGCONT) }
            // Each callback records its state in the store before anything else (HTTP-API.md §3.2).
            let answers = try await Self.concurrently(10) { index in
                try await flows[index].browser.deliver(flows[index].callback, to: url, accept: "application/json")
            }
            for (response, elapsed) in answers {
                #expect(elapsed < Self.bound, "a callback took \(elapsed) while Redis was stopped")
                EndToEndRefusalTests.expectError(response, status: 503, code: "unavailable")
                #expect(response.headers["Retry-After"] != nil, "\(response.headers)")
            }

            cluster.redis.signal(SIGCONT)
            // Resumed: new sign-ins complete once the connection is back (attempts back off 2 s at most).
            #expect(try await Self.readinessOnceResumed(cluster) == [200])
            #expect(
                try await cluster.browser().signIn("google.com", start: url, callback: url, redeem: url).status == 200)
        }
    }

    /// One instance on its Redis with the short command timeout, after a first sign-in: the connection is up and its
    /// last known state is good.
    private static func withSignedInInstance(_ body: (ScaleOut, String) async throws -> Void) async throws {
        try await withScaleOut(count: 1, commandTimeoutSeconds: commandTimeoutSeconds) { cluster in
            let url = cluster.instances[0].url
            #expect(
                try await cluster.browser().signIn("google.com", start: url, callback: url, redeem: url).status == 200)
            #expect(try await cluster.readiness() == [200])
            try await body(cluster, url)
        }
    }

    /// `/readyz` of every instance, asked every 25 ms until all answer 200, for 5 s at most.
    private static func readinessOnceResumed(_ cluster: ScaleOut) async throws -> [Int] {
        var statuses = try await cluster.readiness()
        for _ in 0..<200 where statuses.contains(where: { $0 != 200 }) {
            try await Task.sleep(for: .milliseconds(25))
            statuses = try await cluster.readiness()
        }
        return statuses
    }

    /// Runs `count` calls of `call` at once; each one's answer and how long it took.
    private static func concurrently(
        _ count: Int, _ call: @escaping @Sendable (Int) async throws -> OutboundResponse
    ) async throws -> [(OutboundResponse, Duration)] {
        let clock = ContinuousClock()
        return try await withThrowingTaskGroup(of: (OutboundResponse, Duration).self) { group in
            for index in 0..<count {
                group.addTask {
                    let began = clock.now
                    let response = try await call(index)
                    return (response, clock.now - began)
                }
            }
            var answers: [(OutboundResponse, Duration)] = []
            for try await answer in group { answers.append(answer) }
            return answers
        }
    }
}
