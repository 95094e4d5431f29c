import Foundation
import TestSupport
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP
@testable import AuthHandlerProtocols
@testable import auth_handler

/// The first response to `request`, sent verbatim on a new connection to `port`.
private func refusalResponse(_ request: String, port: UInt16) async -> HTTPRawResponse? {
    await httpTestOffPool {
        let connection = HTTPRawConnection(port: port)
        connection?.write(request)
        return connection?.readResponse()
    }
}

/// The default security header fields missing from a response head.
private func missingSecurityHeaders(_ response: HTTPRawResponse?) -> [String] {
    let lines = (response?.head ?? "").lowercased().components(separatedBy: "\r\n")
    return HTTPServerConfiguration.defaultSecurityHeaders.map { "\($0.name): \($0.value)".lowercased() }.filter {
        !lines.contains($0)
    }
}

/// Responses the listener builds without the handler carry the same security headers the service sends.
struct HTTPRefusalHeadersTests {
    @Test(arguments: [
        (400, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
        (400, "GET / HTTP/1.1\r\nHost: a b\r\n\r\n"),
        (400, "GET /x?a=%ZZ HTTP/1.1\r\nHost: x\r\n\r\n"),
        (
            400,
            "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                + "Content-Length: 3\r\n\r\na=%"
        ),
        (413, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n"),
        (431, "GET / HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "b", count: 65 * 1024))\r\n\r\n"),
        (501, "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"),
    ])
    func refusalsCarryTheSecurityHeaders(status: Int, request: String) async throws {
        let server = try HTTPServer(listeningOn: ["127.0.0.1:0"]) { _ in .text("handled") }
        let response = await refusalResponse(request, port: server.firstPort)
        #expect(response?.status == status)
        #expect(missingSecurityHeaders(response) == [])
        await server.stop()
    }

    @Test func the500ReplacingAnInvalidHandlerResponseCarriesTheSecurityHeaders() async throws {
        let server = try HTTPServer(listeningOn: ["127.0.0.1:0"]) { _ in
            ServerResponse(headers: ["X-Bad": "a\r\nb"])
        }
        let response = await refusalResponse("GET / HTTP/1.1\r\nHost: x\r\n\r\n", port: server.firstPort)
        #expect(response?.status == 500)
        #expect(missingSecurityHeaders(response) == [])
        await server.stop()
    }

    @Test func the503OfAStopCarriesTheSecurityHeaders() async throws {
        let started = TestGate()
        let server = try HTTPServer(listeningOn: ["127.0.0.1:0"]) { _ in
            started.open()
            try? await Task.sleep(for: .seconds(60))
            return .text("too late")
        }
        let port = server.firstPort
        let pending = Task { await refusalResponse("GET / HTTP/1.1\r\nHost: x\r\n\r\n", port: port) }
        await started.wait()
        await server.stop(gracePeriod: .milliseconds(100))
        let response = await pending.value
        #expect(response?.status == 503)
        #expect(missingSecurityHeaders(response) == [])
    }

    @Test func theConfiguredFieldsAreUsedAndHandlerResponsesAreLeftAlone() async throws {
        let server = try HTTPServer(
            listeningOn: ["127.0.0.1:0"], configuration: HTTPServerConfiguration(refusalHeaders: ["X-Own": "1"])
        ) { _ in .text("handled") }
        let refused = await refusalResponse("GET / HTTP/1.1\r\nHost: a b\r\n\r\n", port: server.firstPort)
        #expect(refused?.status == 400)
        #expect(refused?.head.contains("\r\nX-Own: 1") == true)
        #expect(refused?.head.lowercased().contains("cache-control") == false)
        let handled = await refusalResponse("GET / HTTP/1.1\r\nHost: x\r\n\r\n", port: server.firstPort)
        #expect(handled?.status == 200)
        #expect(handled?.head.contains("X-Own") == false)
        await server.stop()
    }

    @Test func theRendererWritesRefusalsAndTheListenerKeepsClosingThem() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.refusalRenderer = { status, message, accept in
            .text("rendered \(status) [\(message)] for \(accept ?? "nil")", status: status)
        }
        let server = try HTTPServer(listeningOn: ["127.0.0.1:0"], configuration: configuration) { _ in .text("handled")
        }
        // A space in the target: 400, closing (HTTP-API.md §3.5).
        let refused = await refusalResponse(
            "GET /a b HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\n\r\n", port: server.firstPort)
        #expect(refused?.status == 400)
        #expect(
            refused?.body
                == "rendered 400 [Bad Request: whitespace or a control character in the request target] for application/json"
        )
        #expect(refused?.head.lowercased().contains("connection: close") == true)
        #expect(missingSecurityHeaders(refused) == [])
        await server.stop()
    }
}
