import Foundation
import Synchronization
import TestSupport
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP
@testable import AuthHandlerProtocols
@testable import auth_handler

/// Echoes the parsed request as text, one `key=value` line per property.
private let echoHandler: HTTPServerHandler = { request in
    var lines = [
        "method=\(request.method)", "path=\(request.path)", "rawQuery=\(request.rawQuery)",
        "remote=\(request.remoteAddress ?? "-")", "bodyBytes=\(request.body.count)",
        "xtest=\(request.headers["x-TEST"] ?? "-")",
    ]
    lines += request.queryItems.map { "query:\($0.name)=\($0.value)" }
    lines += request.formFields.map { "form:\($0.name)=\($0.value)" }
    return .text(lines.joined(separator: "\n"))
}

struct HTTPServerTests {
    @Test func servesOnIPv4AndIPv6EphemeralPortsAndReportsRealPorts() async throws {
        let server = try HTTPServer(listeningOn: ["127.0.0.1:0", "[::1]:0"], handler: echoHandler)
        let client = try HTTPClient()
        #expect(server.addresses.count == 2)
        #expect(server.addresses.allSatisfy { $0.port != 0 })
        #expect(server.addresses[0].description == "127.0.0.1:\(server.addresses[0].port)")
        #expect(server.addresses[1].description == "[::1]:\(server.addresses[1].port)")
        for address in server.addresses {
            let response = try await client.send(OutboundRequest(url: "http://\(address)/hello"))
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self).contains("path=/hello"))
        }
        await server.stop()
    }

    @Test func parsesMethodPathQueryHeadersFormBodyAndRemoteAddress() async throws {
        let server = try HTTPServer(listeningOn: ["127.0.0.1:0"], handler: echoHandler)
        let client = try HTTPClient()
        let response = try await client.send(
            OutboundRequest(
                method: "POST", url: "\(server.baseURL)/__/auth/handler?providerId=x&a=b+c&a=%E2%9C%93",
                headers: ["Content-Type": "application/x-www-form-urlencoded; charset=UTF-8", "X-Test": "yes"],
                body: Array("state=s1&code=c%2F2".utf8)))
        let text = String(decoding: response.body, as: UTF8.self)
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "text/plain; charset=utf-8")
        #expect(text.contains("method=POST"))
        #expect(text.contains("path=/__/auth/handler\n"))
        #expect(text.contains("rawQuery=providerId=x&a=b+c&a=%E2%9C%93"))
        #expect(text.contains("query:providerId=x\nquery:a=b c\nquery:a=✓"))
        #expect(text.contains("form:state=s1\nform:code=c/2"))
        #expect(text.contains("xtest=yes"))
        #expect(text.contains("remote=127.0.0.1:"))
        await server.stop()
        #expect(server.requestsInFlight == 0)
    }

    @Test func aRequestMHDDropsBeforeTheHandlerRunsIsNotLeftInFlight() async throws {
        // MHD gives up when its pool cannot hold the split cookies (HTTP-API.md §3.5), after the URI log but before
        // the access handler, and never calls NOTIFY_COMPLETED for such a request; it closes, with no answer or its own
        // 431 depending on where the pool ran out. 10,000 cookies (50 KiB): the default 256 KiB pool holds 3,500.
        let server = try HTTPServer(listeningOn: ["127.0.0.1:0"]) { _ in .text("handled") }
        let port = server.firstPort
        let cookies = Array(repeating: "a=1", count: 10000).joined(separator: "; ")
        let (text, closed) = await httpTestOffPool { () -> (String, Bool) in
            guard let connection = HTTPRawConnection(port: port) else { return ("", false) }
            connection.write("GET /x HTTP/1.1\r\nHost: x\r\nCookie: \(cookies)\r\n\r\n")
            return connection.readUntilClosed()
        }
        #expect(closed && !text.contains("handled"), "the handler ran after all: \(text.prefix(200))")
        // MHD cleans the connection up shortly after closing it; wait for that, not for a fixed time.
        let deadline = ContinuousClock.now + .seconds(5)
        while server.requestsInFlight > 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(server.requestsInFlight == 0)
        await server.stop()
    }

    @Test func answersBadRequestToAnUndecodableQuery() async throws {
        let server = try HTTPServer(listeningOn: ["127.0.0.1:0"], handler: echoHandler)
        let client = try HTTPClient()
        let response = try await client.send(OutboundRequest(url: "\(server.baseURL)/x?a=%ZZ"))
        #expect(response.status == 400)
        #expect(String(decoding: response.body, as: UTF8.self).contains("'%' must be followed by two hexadecimal"))
        await server.stop()
    }

    @Test func responseConveniencesSetTypeAndLocation() async throws {
        let server = try HTTPServer(listeningOn: ["127.0.0.1:0"]) { request in
            switch request.path {
            case "/json": ServerResponse.json(JSONValue.object(["ok": .bool(true)]))
            case "/html": .html("<p>hi</p>", status: 201)
            default: .redirect(to: "https://app.example.com/done?code=1", status: 303)
            }
        }
        let client = try HTTPClient()
        let json = try await client.send(OutboundRequest(url: "\(server.baseURL)/json"))
        #expect(json.headers["Content-Type"] == "application/json")
        #expect(String(decoding: json.body, as: UTF8.self) == #"{"ok":true}"#)
        let html = try await client.send(OutboundRequest(url: "\(server.baseURL)/html"))
        #expect(html.status == 201)
        #expect(html.headers["content-type"] == "text/html; charset=utf-8")
        // The client never follows redirects: the 303 itself comes back.
        let redirect = try await client.send(OutboundRequest(url: "\(server.baseURL)/go"))
        #expect(redirect.status == 303)
        #expect(redirect.headers["location"] == "https://app.example.com/done?code=1")
        await server.stop()
    }

    @Test func dropsEmptyResponseHeadersAndAnswers500ToInvalidOnes() async throws {
        let server = try HTTPServer(listeningOn: ["127.0.0.1:0"]) { request in
            request.path == "/empty"
                ? ServerResponse(headers: ["X-Empty": "", "X-Kept": "1"], body: Array("ok".utf8))
                : ServerResponse(headers: ["X-Bad": "a\r\nSet-Cookie: injected=1"])
        }
        let client = try HTTPClient()
        let empty = try await client.send(OutboundRequest(url: "\(server.baseURL)/empty"))
        #expect(empty.status == 200)
        #expect(empty.headers["x-kept"] == "1")
        #expect(empty.headers["x-empty"] == nil)
        let injected = try await client.send(OutboundRequest(url: "\(server.baseURL)/bad"))
        #expect(injected.status == 500)
        #expect(injected.headers["set-cookie"] == nil)
        await server.stop()
    }

    @Test func adoptsAnAlreadyListeningSocket() async throws {
        let socket = try HTTPListeningSocket.open(ListenAddress("127.0.0.1:0"), backlog: 16)
        let port = try HTTPListeningSocket.boundAddress(of: socket).port
        let fd = try #require(socket.relinquish())
        let server = try HTTPServer(adoptingListeningSockets: [fd], handler: echoHandler)
        #expect(server.addresses == [ListenAddress(host: "127.0.0.1", port: port)])
        let response = try await HTTPClient().send(OutboundRequest(url: "http://127.0.0.1:\(port)/adopted"))
        #expect(response.status == 200)
        await server.stop()
        // The server owned the descriptor and closed it.
        #expect(fcntl(fd, F_GETFD) == -1)
    }

    @Test func refusesToAdoptASocketThatIsNotListening() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(throws: HTTPServerError.self) {
            _ = try HTTPServer(adoptingListeningSockets: [fd], handler: echoHandler)
        }
    }

    @Test func reportsBindFailuresWithErrno() throws {
        let first = try HTTPServer(listeningOn: ["127.0.0.1:0"], handler: echoHandler)
        do {
            _ = try HTTPServer(listeningOn: ["127.0.0.1:\(first.firstPort)"], handler: echoHandler)
            Issue.record("binding a port in use succeeded")
        } catch {
            #expect(error.operation == "bind")
            #expect(error.errorNumber == EADDRINUSE)
            #expect(error.description.contains("127.0.0.1:\(first.firstPort)"))
        }
        #expect(throws: HTTPServerError.self) { try ListenAddress("myhost:80") }
        // A host the parser would refuse, built directly, is refused when bound, not resolved.
        #expect(throws: HTTPServerError.self) {
            try HTTPServer(listeningOn: [ListenAddress(host: "myhost", port: 0)], handler: echoHandler)
        }
        let local = try HTTPServer(listeningOn: ["localhost:0"], handler: echoHandler)
        #expect(local.addresses[0].host == "127.0.0.1")
    }

    @Test func keepsTheConnectionAliveAcrossRequests() async throws {
        let server = try HTTPServer(listeningOn: ["127.0.0.1:0"], handler: echoHandler)
        let port = server.firstPort
        let (first, second) = await httpTestOffPool { () -> (HTTPRawResponse?, HTTPRawResponse?) in
            guard let connection = HTTPRawConnection(port: port) else { return (nil, nil) }
            connection.write("GET /one HTTP/1.1\r\nHost: x\r\n\r\n")
            let first = connection.readResponse()
            connection.write("GET /two HTTP/1.1\r\nHost: x\r\n\r\n")
            return (first, connection.readResponse())
        }
        #expect(first?.status == 200)
        #expect(first?.head.lowercased().contains("connection: close") == false)
        #expect(second?.status == 200)
        #expect(second?.body.contains("path=/two") == true)
        await server.stop()
    }

    @Test func theRequestDeadlineClosesASlowHeadButNotASlowHandler() async throws {
        let server = try HTTPServer(
            listeningOn: ["127.0.0.1:0"], configuration: HTTPServerConfiguration(requestDeadlineSeconds: 1)
        ) { request in
            // Longer than the deadline: the deadline is for receiving the request, not for answering it.
            if request.path == "/slow-handler" { try? await Task.sleep(for: .milliseconds(1600)) }
            return .text("answered")
        }
        let port = server.firstPort
        let (slowHead, slowHandler) = await httpTestOffPool { () -> ((String, Bool), HTTPRawResponse?) in
            guard let head = HTTPRawConnection(port: port, timeout: .seconds(4)),
                let handled = HTTPRawConnection(port: port, timeout: .seconds(4))
            else { return (("", false), nil) }
            head.write("GET /x HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            handled.write("GET /slow-handler HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = handled.readResponse()
            // Its head never ends: closed at the deadline (checked every 250 ms), unanswered, within the 4 s timeout.
            return (head.readUntilClosed(), response)
        }
        #expect(slowHead.1 && slowHead.0.isEmpty, "the slow head was not closed unanswered: \(slowHead.0.prefix(80))")
        #expect(slowHandler?.status == 200 && slowHandler?.body == "answered")
        await server.stop()
    }

    @Test func anImmediateAnswerSkipsTheHandlerAndKeepsTheConnectionAlive() async throws {
        let handled = Mutex<[String]>([])
        let server = try HTTPServer(
            listeningOn: ["127.0.0.1:0"],
            immediate: { request in request.path == "/fast" ? .text("fast \(request.rawQuery)") : nil }
        ) { request in
            handled.withLock { $0.append(request.path) }
            return .text("slow")
        }
        let port = server.firstPort
        let answers = await httpTestOffPool { () -> [HTTPRawResponse?] in
            guard let connection = HTTPRawConnection(port: port) else { return [] }
            return ["/fast?a=1", "/slow", "/fast?b=2"].map { target in
                connection.write("GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n")
                return connection.readResponse()
            }
        }
        #expect(answers.map { $0?.body } == ["fast a=1", "slow", "fast b=2"])
        #expect(answers.allSatisfy { $0?.head.lowercased().contains("connection: close") == false })
        #expect(handled.withLock { $0 } == ["/slow"], "the async handler ran only for the declined request")
        await server.stop()
        #expect(server.requestsInFlight == 0)
    }

    @Test func answers413ToAnAnnouncedOversizeBodyWithoutReadingItAndKeepsServing() async throws {
        let server = try HTTPServer(listeningOn: ["127.0.0.1:0"], handler: echoHandler)
        let port = server.firstPort
        let response = await httpTestOffPool {
            // Only the head is sent: a 413 proves the server answered without waiting for 100,000 bytes.
            let connection = HTTPRawConnection(port: port)
            connection?.write("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n")
            return connection?.readResponse()
        }
        #expect(response?.status == 413)
        let next = try await HTTPClient().send(OutboundRequest(url: "\(server.baseURL)/after"))
        #expect(next.status == 200)
        await server.stop()
    }

    @Test func answers413ToAChunkedBodyThatGrowsPastTheLimit() async throws {
        let server = try HTTPServer(listeningOn: ["127.0.0.1:0"], handler: echoHandler)
        let port = server.firstPort
        let response = await httpTestOffPool {
            let connection = HTTPRawConnection(port: port)
            connection?.write("POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            let chunk = String(repeating: "a", count: 16 * 1024)
            for _ in 0..<5 { connection?.write("4000\r\n\(chunk)\r\n") }
            connection?.write("0\r\n\r\n")
            return connection?.readResponse()
        }
        #expect(response?.status == 413)
        let next = try await HTTPClient().send(OutboundRequest(url: "\(server.baseURL)/after"))
        #expect(next.status == 200)
        await server.stop()
        #expect(server.requestsInFlight == 0)
    }

    @Test func acceptsABodyAtTheLimit() async throws {
        let server = try HTTPServer(listeningOn: ["127.0.0.1:0"], handler: echoHandler)
        let response = try await HTTPClient().send(
            OutboundRequest(method: "PUT", url: "\(server.baseURL)/", body: [UInt8](repeating: 7, count: 64 * 1024)))
        #expect(String(decoding: response.body, as: UTF8.self).contains("bodyBytes=65536"))
        await server.stop()
    }

    @Test func refusesOversizeHeadersAndKeepsServing() async throws {
        let server = try HTTPServer(listeningOn: ["127.0.0.1:0"], handler: echoHandler)
        let port = server.firstPort
        let (justOver, wellOver, far) = await httpTestOffPool {
            () -> (HTTPRawResponse?, HTTPRawResponse?, HTTPRawResponse?) in
            let requests = [65 * 1024, 96 * 1024, 1024 * 1024].map { size in
                let connection = HTTPRawConnection(port: port)
                connection?.write("GET / HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "b", count: size))\r\n\r\n")
                return connection?.readResponse()
            }
            return (requests[0], requests[1], requests[2])
        }
        // Up to well past the limit the refusal is this server's own (its text, the security headers).
        for refusal in [justOver, wellOver] {
            #expect(refusal?.status == 431)
            #expect(refusal?.body == "Request header fields too large\n")
            #expect(refusal?.head.lowercased().contains("cache-control: no-store") == true)
        }
        // Past MHD's connection memory pool, MHD itself refuses (431) or drops the connection.
        #expect(far == nil || far?.status == 431)
        let client = try HTTPClient()
        let fits = try await client.send(
            OutboundRequest(url: "\(server.baseURL)/", headers: ["X-Big": String(repeating: "c", count: 63 * 1024)]))
        #expect(fits.status == 200)
        await server.stop()
        #expect(server.requestsInFlight == 0)
    }

    /// Ten sealed-state cookies of 4,000 bytes: a browser with several sign-ins in flight at once.
    @Test(arguments: [false, true])
    func servesTenCookiesOf4000BytesIntact(separateHeaderLines: Bool) async throws {
        let server = try HTTPServer(listeningOn: ["127.0.0.1:0"]) { request in
            .text(request.headers.values(for: "Cookie").joined(separator: "\n"))
        }
        let cookies = (0..<10).map { index in
            "__Host-s\(index)=" + String(repeating: Character(String(index)), count: 4000 - 10)
        }
        #expect(cookies.allSatisfy { $0.utf8.count == 4000 })
        let lines = separateHeaderLines ? cookies : [cookies.joined(separator: "; ")]
        let port = server.firstPort
        let response = await httpTestOffPool { () -> HTTPRawResponse? in
            let connection = HTTPRawConnection(port: port)
            // Other fields a browser sends, so the cookies do not have the header block to themselves.
            let fields = lines.map { "Cookie: \($0)\r\n" }.joined()
            connection?.write(
                "GET /__/auth/handler HTTP/1.1\r\nHost: auth.example.com\r\nUser-Agent: \(String(repeating: "u", count: 300))"
                    + "\r\nAccept: text/html\r\nAccept-Language: en\r\n\(fields)\r\n")
            return connection?.readResponse()
        }
        #expect(response?.status == 200)
        #expect(response?.body == lines.joined(separator: "\n"))
        await server.stop()
    }

    @Test func closesConnectionsBeyondTheLimitAndIdleOnesAfterTheTimeout() async throws {
        let server = try HTTPServer(
            listeningOn: ["127.0.0.1:0"],
            configuration: HTTPServerConfiguration(connectionLimit: 1, connectionTimeoutSeconds: 1, threadPoolSize: 1),
            handler: echoHandler)
        let port = server.firstPort
        let (first, secondClosed, firstClosedWhenIdle) = await httpTestOffPool {
            () -> (HTTPRawResponse?, Bool, Bool) in
            let held = HTTPRawConnection(port: port)
            held?.write("GET /held HTTP/1.1\r\nHost: x\r\n\r\n")
            let first = held?.readResponse()
            // MHD accepts the second connection and closes it at once: the limit is one.
            let extra = HTTPRawConnection(port: port)
            let secondClosed = extra?.isClosedByPeer() ?? true
            // The idle kept-alive connection is closed by the 1 s timeout (the read timeout is 5 s).
            return (first, secondClosed, held?.isClosedByPeer() ?? false)
        }
        #expect(first?.status == 200)
        #expect(secondClosed)
        #expect(firstClosedWhenIdle)
        await server.stop()
    }

    @Test func closesAConnectionFromAnAddressPastItsLimitAndKeepsServingTheOthers() async throws {
        // Two MHD threads: the count is per listening socket, not per worker thread.
        let server = try HTTPServer(
            listeningOn: ["127.0.0.1:0"],
            configuration: HTTPServerConfiguration(perIPConnectionLimit: 2, threadPoolSize: 2),
            handler: echoHandler)
        let port = server.firstPort
        let (first, thirdClosed, again) = await httpTestOffPool {
            () -> ([HTTPRawResponse?], Bool, [HTTPRawResponse?]) in
            let held = [HTTPRawConnection(port: port), HTTPRawConnection(port: port)]
            let first = held.map { connection in
                connection?.write("GET /held HTTP/1.1\r\nHost: x\r\n\r\n")
                return connection?.readResponse()
            }
            let third = HTTPRawConnection(port: port)
            third?.write("GET /third HTTP/1.1\r\nHost: x\r\n\r\n")
            let thirdClosed = third.map { $0.readResponse() == nil } ?? true
            let again = held.map { connection in
                connection?.write("GET /again HTTP/1.1\r\nHost: x\r\n\r\n")
                return connection?.readResponse()
            }
            return (first, thirdClosed, again)
        }
        #expect(first.map { $0?.status } == [200, 200])
        #expect(thirdClosed)
        #expect(again.map { $0?.status } == [200, 200])
        #expect(again.allSatisfy { $0?.body.contains("path=/again") == true })
        await server.stop()
    }

    @Test func aSlowHandlerDoesNotBlockAFastOne() async throws {
        let slowStarted = TestGate()
        let releaseSlow = TestGate()
        let server = try HTTPServer(
            listeningOn: ["127.0.0.1:0"], configuration: HTTPServerConfiguration(threadPoolSize: 1)
        ) { request in
            if request.path == "/slow" {
                slowStarted.open()
                await releaseSlow.wait()
            }
            return .text(request.path)
        }
        let client = try HTTPClient()
        let slow = Task { try await client.send(OutboundRequest(url: "\(server.baseURL)/slow")) }
        await slowStarted.wait()
        // With one MHD thread, this only succeeds because the slow request's connection is suspended.
        let fast = try await client.send(OutboundRequest(url: "\(server.baseURL)/fast", timeout: .seconds(5)))
        #expect(String(decoding: fast.body, as: UTF8.self) == "/fast")
        releaseSlow.open()
        #expect(String(decoding: try await slow.value.body, as: UTF8.self) == "/slow")
        await server.stop()
    }

    @Test func gracefulStopLetsAnInFlightRequestFinishAndStopsAccepting() async throws {
        let started = TestGate()
        let release = TestGate()
        let server = try HTTPServer(listeningOn: ["127.0.0.1:0"]) { _ in
            started.open()
            await release.wait()
            return .text("finished")
        }
        let port = server.firstPort
        let client = try HTTPClient()
        let inFlight = Task { try await client.send(OutboundRequest(url: "\(server.baseURL)/work")) }
        await started.wait()
        let stopping = Task { await server.stop(gracePeriod: .seconds(10)) }
        // Wait until stop has quiesced the listener: new connections are refused from then on.
        let refused = await httpTestOffPool {
            for _ in 0..<5000 {
                guard let probe = HTTPRawConnection(port: port) else { return true }
                _ = probe
                usleep(1000)
            }
            return false
        }
        #expect(refused)
        let clock = ContinuousClock()
        let released = clock.now
        release.open()
        let response = try await inFlight.value
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "finished")
        #expect(response.headers["connection"]?.lowercased() == "close")
        await stopping.value
        // The last request's completion wakes the stop: it does not sit out its 10 s grace period.
        #expect(clock.now - released < .seconds(5))
        #expect(server.requestsInFlight == 0)
    }

    @Test func stopAnswers503ToAHandlerThatOutlivesTheGracePeriod() async throws {
        let started = TestGate()
        let server = try HTTPServer(listeningOn: ["127.0.0.1:0"]) { _ in
            started.open()
            try? await Task.sleep(for: .seconds(60))
            return .text("too late")
        }
        let client = try HTTPClient()
        let inFlight = Task { try await client.send(OutboundRequest(url: "\(server.baseURL)/stuck")) }
        await started.wait()
        let clock = ContinuousClock()
        let elapsed = await clock.measure { await server.stop(gracePeriod: .milliseconds(100)) }
        #expect(elapsed < .seconds(5))
        #expect(try await inFlight.value.status == 503)
    }

    @Test func releasingTheServerStopsIt() async throws {
        var server: HTTPServer? = try HTTPServer(listeningOn: ["127.0.0.1:0"], handler: echoHandler)
        let port = server?.firstPort ?? 0
        server = nil
        let connected = await httpTestOffPool { HTTPRawConnection(port: port) != nil }
        #expect(!connected)
    }

    @Test func headerLookupIgnoresCase() {
        var headers: HTTPHeaders = ["Content-Type": "text/plain", "Set-Cookie": "a=1"]
        headers.add(name: "set-cookie", value: "b=2")
        #expect(headers["content-type"] == "text/plain")
        #expect(headers.values(for: "SET-COOKIE") == ["a=1", "b=2"])
        headers.set(name: "CONTENT-TYPE", value: "text/html")
        #expect(headers.values(for: "Content-Type") == ["text/html"])
        #expect(headers["missing"] == nil)
    }
}
