import Foundation
import Synchronization

@testable import AuthHandlerCore
@testable import AuthHandlerCrypto
@testable import AuthHandlerHTTP
@testable import AuthHandlerProtocols
@testable import AuthHandlerStore
@testable import AuthHandlerSystem
@testable import auth_handler

/// An in-test `HTTPFetching` that records every request and answers from a queue of canned answers.
final class ProviderFakeHTTP: HTTPFetching {
    /// One canned answer.
    enum Answer: Sendable {
        case response(HTTPResponse)
        case failure(HTTPClientError)
        case cancelled
    }

    private struct State {
        var requests: [HTTPRequest] = []
        var answers: [Answer]
    }

    private let state: Mutex<State>

    init(_ answers: [Answer]) {
        state = Mutex(State(answers: answers))
    }

    /// Answers each request with the next response, in order.
    convenience init(responses: HTTPResponse...) {
        self.init(responses.map(Answer.response))
    }

    /// The requests sent so far, in order.
    var requests: [HTTPRequest] { state.withLock { $0.requests } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let answer = state.withLock { state -> Answer? in
            state.requests.append(request)
            return state.answers.isEmpty ? nil : state.answers.removeFirst()
        }
        switch answer {
        case .response(let response): return response
        case .failure(let error): throw error
        case .cancelled: throw CancellationError()
        case nil:
            throw HTTPClientError(
                kind: .invalidRequest("no canned answer left"), method: request.method, target: "test")
        }
    }
}

extension HTTPResponse {
    /// A response with a text body and a content type.
    static func text(_ status: Int, _ body: String, contentType: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": contentType], body: Array(body.utf8))
    }

    /// A JSON response.
    static func json(_ status: Int, _ body: String) -> HTTPResponse {
        text(status, body, contentType: "application/json")
    }

    /// A form-encoded response.
    static func form(_ status: Int, _ body: String) -> HTTPResponse {
        text(status, body, contentType: "application/x-www-form-urlencoded")
    }
}

extension HTTPRequest {
    /// The body decoded as a form.
    var formFields: [URLFormField] { (try? FormURLEncoding.decode(bytes: body)) ?? [] }
}
