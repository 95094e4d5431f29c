import AuthHandlerCore
import AuthHandlerHTTP
import AuthHandlerProtocols
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Slow clients against the real `auth-handler serve` (HTTP-API.md §3.5, CONFIG.md `listener`): connections that send
/// their request head a byte a second hold nothing for long, because the daemon closes each at its request deadline
/// (2 s here), and a normal client is served meanwhile.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct EndToEndSlowClientTests {
    static let slowConnections = 200
    static let deadlineSeconds = 2

    /// What `connection` shows now, without waiting: whether the peer closed it, and how many bytes it sent.
    static func state(_ connection: HTTPRawConnection) -> (closed: Bool, received: Int) {
        var chunk = [UInt8](repeating: 0, count: 4096)
        var received = 0
        while true {
            let count = recv(connection.fd, &chunk, chunk.count, Int32(MSG_DONTWAIT))
            if count > 0 {
                received += count
                continue
            }
            let closed = count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)
            return (closed, received)
        }
    }

    @Test("200 slow-header connections are closed at the request deadline while a normal sign-in is served")
    func slowHeaders() async throws {
        try await withEndToEnd(settings: ["listener": "{\"requestDeadlineSeconds\": \(Self.deadlineSeconds)}"]) {
            e2e in
            let port = try #require(UInt16(e2e.daemonURL.split(separator: ":").last ?? ""))
            let opened = ContinuousClock.now
            let slow = await httpTestOffPool { () -> [HTTPRawConnection] in
                (0..<Self.slowConnections).compactMap { _ in
                    let connection = HTTPRawConnection(port: port, timeout: .seconds(5))
                    connection?.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
                    return connection
                }
            }
            #expect(slow.count == Self.slowConnections)
            // A byte a second on every slow connection, which keeps libmicrohttpd's idle timeout (30 s) from ever
            // firing: only the deadline can close them.
            let pacing = Task.detached {
                for _ in 0..<(Self.deadlineSeconds + 3) {
                    await httpTestOffPool { for connection in slow { connection.write("a") } }
                    try? await Task.sleep(for: .seconds(1))
                }
            }
            // Served while they hang: health, a start, and a complete sign-in.
            var began = ContinuousClock.now
            #expect(try await e2e.get(e2e.daemonURL + "/healthz").status == 200)
            let health = ContinuousClock.now - began
            began = ContinuousClock.now
            let start = try await e2e.get(e2e.startURL("google.com"))
            let starting = ContinuousClock.now - began
            #expect(start.status == 302)
            #expect(health <= .seconds(2) && starting <= .seconds(2), "healthz took \(health), a start \(starting)")
            began = ContinuousClock.now
            let walk = try await e2e.signIn("google.com")
            #expect(walk.appQuery.first(named: "code") != nil, "the sign-in took \(ContinuousClock.now - began)")
            let openBeforeDeadline = await httpTestOffPool { slow.filter { !Self.state($0).closed }.count }
            let checkedAt = ContinuousClock.now - opened
            if checkedAt < .seconds(Self.deadlineSeconds) - .milliseconds(300) {
                #expect(openBeforeDeadline == slow.count, "closed before the deadline, at \(checkedAt)")
            }
            await pacing.value
            // By now (the deadline, plus its check interval, plus slack) the daemon has closed every one, unanswered.
            let states = await httpTestOffPool { slow.map { Self.state($0) } }
            let closed = states.filter(\.closed).count
            let answered = states.filter { $0.received > 0 }.count
            #expect(
                closed == slow.count,
                "\(slow.count - closed) slow connections were still open after \(ContinuousClock.now - opened)")
            #expect(answered == 0)
            #expect(try await e2e.get(e2e.daemonURL + "/healthz").status == 200)
        }
    }
}
