import Foundation
import TestSupport
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP
@testable import auth_handler

struct HTTPClientTests {
    @Test func sendsMethodHeadersAndBodyAndReadsTheResponse() async throws {
        let server = try HTTPServer(listeningOn: ["127.0.0.1:0"]) { request in
            var response = ServerResponse(status: 202, body: request.body.reversed())
            response.headers.add(name: "X-Method", value: request.method)
            response.headers.add(name: "X-Echo", value: request.headers["x-in"] ?? "-")
            response.headers.add(name: "X-Empty", value: request.headers["x-empty"].map { "[\($0)]" } ?? "absent")
            return response
        }
        let client = try HTTPClient()
        let response = try await client.send(
            OutboundRequest(
                method: "PATCH", url: "\(server.baseURL)/r", headers: ["X-In": "v1", "X-Empty": ""],
                body: [1, 2, 3, 0, 4]))
        #expect(response.status == 202)
        #expect(response.body == [4, 0, 3, 2, 1])
        #expect(response.headers["x-method"] == "PATCH")
        #expect(response.headers["X-ECHO"] == "v1")
        #expect(response.headers["x-empty"] == "[]")
        await server.stop()
    }

    @Test func reusesOneConnectionForSequentialRequests() async throws {
        let server = try HTTPServer(listeningOn: ["127.0.0.1:0"]) { .text($0.remoteAddress ?? "-") }
        let client = try HTTPClient()
        let first = try await client.send(OutboundRequest(url: "\(server.baseURL)/a"))
        let second = try await client.send(OutboundRequest(url: "\(server.baseURL)/b"))
        // The same client port twice: curl kept the connection and MHD kept it alive.
        #expect(first.body == second.body)
        await server.stop()
    }

    @Test func timesOutWithTheCurlCodeAndText() async throws {
        let server = try HTTPServer(listeningOn: ["127.0.0.1:0"]) { _ in
            try? await Task.sleep(for: .seconds(10))
            return .text("late")
        }
        let client = try HTTPClient()
        let clock = ContinuousClock()
        let start = clock.now
        do {
            _ = try await client.send(OutboundRequest(url: "\(server.baseURL)/slow", timeout: .milliseconds(200)))
            Issue.record("expected a timeout")
        } catch let error as HTTPClientError {
            guard case .transfer(let code, let text, _) = error.kind else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(code == 28)  // CURLE_OPERATION_TIMEDOUT
            #expect(text == "Timeout was reached")
            #expect(error.description.contains("Timeout was reached"))
        }
        #expect(clock.now - start < .seconds(3))
        await server.stop(gracePeriod: .milliseconds(10))
    }

    @Test func abortsAResponseLargerThanTheCapWhenContentLengthAnnouncesIt() async throws {
        let server = try HTTPServer(listeningOn: ["127.0.0.1:0"]) { _ in
            ServerResponse(body: [UInt8](repeating: 65, count: 10_000))
        }
        let client = try HTTPClient(configuration: HTTPClientConfiguration(maxResponseBytes: 1000))
        await #expect(
            throws: HTTPClientError(
                kind: .responseTooLarge(limit: 1000), method: "GET", target: "\(server.baseURL)/big")
        ) {
            _ = try await client.send(OutboundRequest(url: "\(server.baseURL)/big"))
        }
        let fits = try await HTTPClient(configuration: HTTPClientConfiguration(maxResponseBytes: 10_000)).send(
            OutboundRequest(url: "\(server.baseURL)/big"))
        #expect(fits.body.count == 10_000)
        await server.stop()
    }

    @Test func abortsAnUnannouncedOversizeBodyInTheWriteCallback() async throws {
        let head = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n"
        let port = try httpTestOneShotServer(response: Array(head.utf8) + [UInt8](repeating: 66, count: 50_000))
        let client = try HTTPClient(configuration: HTTPClientConfiguration(maxResponseBytes: 4096))
        do {
            _ = try await client.send(OutboundRequest(url: "http://127.0.0.1:\(port)/stream?token=s3cret"))
            Issue.record("expected the size cap to abort the transfer")
        } catch let error as HTTPClientError {
            #expect(error.kind == .responseTooLarge(limit: 4096))
            #expect(error.description.contains("4096-byte limit"))
            #expect(!error.description.contains("s3cret"))
        }
    }

    @Test func errorTextCarriesTheCurlCodeTextButNotTheQueryString() async throws {
        // A port that was just free: nothing listens there, so the connection is refused.
        let socket = try HTTPListeningSocket.open(ListenAddress("127.0.0.1:0"), backlog: 1)
        let port = try HTTPListeningSocket.boundAddress(of: socket).port
        try socket.close()
        let client = try HTTPClient()
        do {
            _ = try await client.send(
                OutboundRequest(url: "http://user:pw@127.0.0.1:\(port)/token?client_secret=hunter2&code=xyz#frag"))
            Issue.record("expected a connection failure")
        } catch let error as HTTPClientError {
            guard case .transfer(let code, let text, _) = error.kind else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(code == 7)  // CURLE_COULDNT_CONNECT
            #expect(error.description.contains(text))
            #expect(error.description.contains("Couldn't connect to server"))
            #expect(error.description.contains("127.0.0.1:\(port)/token"))
            #expect(!error.description.contains("hunter2"))
            #expect(!error.description.contains("xyz"))
            #expect(!error.description.contains("pw@"))
            #expect(!String(reflecting: error).contains("hunter2"))
        }
    }

    @Test(arguments: ["file:///etc/passwd", "ftp://127.0.0.1/x", "gopher://127.0.0.1/", "/relative"])
    func refusesNonHTTPURLs(_ url: String) async throws {
        let client = try HTTPClient()
        await #expect(throws: HTTPClientError.self) { _ = try await client.send(OutboundRequest(url: url)) }
    }

    @Test func refusesHeaderInjection() async throws {
        let client = try HTTPClient()
        do {
            _ = try await client.send(OutboundRequest(url: "http://127.0.0.1:1/", headers: ["X-A": "1\r\nX-B: 2"]))
            Issue.record("a header with CRLF was sent")
        } catch let error as HTTPClientError {
            #expect(error.kind == .invalidRequest("invalid header field \"X-A\""))
        }
    }

    @Test func verifiesTLSPeers() async throws {
        // Plain HTTP answered on an https URL fails the handshake: TLS is attempted and not skipped.
        let server = try HTTPServer(listeningOn: ["127.0.0.1:0"]) { _ in .text("plain") }
        let client = try HTTPClient()
        await #expect(throws: HTTPClientError.self) {
            _ = try await client.send(OutboundRequest(url: "https://\(server.addresses[0])/", timeout: .seconds(5)))
        }
        await server.stop(gracePeriod: .milliseconds(100))
    }

    @Test func cancellationEndsAPendingRequest() async throws {
        let started = TestGate()
        let server = try HTTPServer(listeningOn: ["127.0.0.1:0"]) { _ in
            started.open()
            try? await Task.sleep(for: .seconds(10))
            return .text("late")
        }
        let client = try HTTPClient()
        let request = Task { try await client.send(OutboundRequest(url: "\(server.baseURL)/slow")) }
        await started.wait()
        request.cancel()
        await #expect(throws: CancellationError.self) { _ = try await request.value }
        await server.stop(gracePeriod: .milliseconds(10))
    }
}
