import AuthHandlerHTTP
import Foundation
import Synchronization

/// The `HTTPFetching` fake of every in-process test: it records each request, then answers from its script.
///
/// An answer comes from, in order: what `serve(_:_:)` put at the request's exact URL (answered every time), the
/// queue of answers given to `init` (each answered once, in order), the `otherwise` answer (every time). A request
/// nothing in the script answers fails with an ``UnscriptedRequest`` naming it, so an unexpected request cannot pass
/// unnoticed. With a `gate`, every request waits for it to open before it is answered (for coalescing tests).
package final class ScriptedHTTP: HTTPFetching {
    /// One scripted answer: a response, or an error thrown as the HTTP client would (`CancellationError` included).
    package enum Answer: Sendable {
        case response(OutboundResponse)
        case failure(any Error & Sendable)
    }

    private struct Script {
        var requests: [OutboundRequest] = []
        var served: [String: Answer] = [:]
        var queue: [Answer]
        var otherwise: Answer?
    }

    private let script: Mutex<Script>
    private let gate: TestGate?

    /// Answers requests with `answers` in turn, then with `otherwise`.
    package init(_ answers: [Answer] = [], otherwise: Answer? = nil, gate: TestGate? = nil) {
        script = Mutex(Script(queue: answers, otherwise: otherwise))
        self.gate = gate
    }

    /// Answers nothing until scripted.
    package convenience init() {
        self.init([])
    }

    /// Answers each request with the next response, in order.
    package convenience init(responses: OutboundResponse...) {
        self.init(responses.map(Answer.response))
    }

    /// Answers every request with `status` and `body`.
    package convenience init(status: Int, body: String, contentType: String = "application/json") {
        self.init(otherwise: .response(.text(status, body, contentType: contentType)))
    }

    /// Fails every request with `error`, as the HTTP client would.
    package convenience init(throwing error: any Error & Sendable) {
        self.init(otherwise: .failure(error))
    }

    /// Answers every request for exactly `url` with `response`, ahead of the queue.
    package func serve(_ url: String, _ response: OutboundResponse) {
        script.withLock { $0.served[url] = .response(response) }
    }

    /// Serves `value` as a 200 JSON answer at `url`.
    package func serve(_ url: String, json value: JSONValue) {
        let body = value.serialized
        serve(url, OutboundResponse(status: 200, headers: ["Content-Type": "application/json"], body: body))
    }

    /// Adds `answers` to the end of the queue.
    package func enqueue(_ answers: Answer...) {
        script.withLock { $0.queue += answers }
    }

    /// The requests sent so far, in order.
    package var requests: [OutboundRequest] { script.withLock { $0.requests } }

    /// The requests sent to exactly `url` so far, in order.
    package func requests(to url: String) -> [OutboundRequest] {
        requests.filter { $0.url == url }
    }

    /// How many requests were sent to exactly `url`.
    package func fetchCount(_ url: String) -> Int { requests(to: url).count }

    package func send(_ request: OutboundRequest) async throws -> OutboundResponse {
        let answer = script.withLock { script -> Answer? in
            script.requests.append(request)
            if let served = script.served[request.url] { return served }
            if !script.queue.isEmpty { return script.queue.removeFirst() }
            return script.otherwise
        }
        if let gate { await gate.wait() }
        switch answer {
        case .response(let response): return response
        case .failure(let error): throw error
        case nil: throw UnscriptedRequest(method: request.method, url: request.url)
        }
    }

    /// A request the test gave no answer for: a fault of the test's script, not of any transport.
    package struct UnscriptedRequest: Error, CustomStringConvertible {
        package let method: String
        package let url: String

        package var description: String { "the test scripted no answer for \(method) \(url)" }
    }
}
