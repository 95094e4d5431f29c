/// An outbound HTTP request.
package struct OutboundRequest: Sendable {
    /// The method, e.g. `"GET"` or `"POST"`.
    package var method: String
    /// An absolute `http` or `https` URL.
    package var url: String
    package var headers: HTTPHeaders
    package var body: [UInt8]
    /// The limit for the whole exchange, connecting included.
    package var timeout: Duration

    package init(
        method: String = "GET", url: String, headers: HTTPHeaders = [:], body: [UInt8] = [],
        timeout: Duration = .seconds(30)
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// A response to an `OutboundRequest` (any status; only transport failures throw).
package struct OutboundResponse: Sendable {
    package var status: Int
    package var headers: HTTPHeaders
    package var body: [UInt8]

    package init(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// The seam for outbound HTTP: production uses `HTTPClient`, tests inject fakes.
package protocol HTTPFetching: Sendable {
    /// Performs `request`; throws `HTTPClientError` on transport failure, `CancellationError` when cancelled.
    func send(_ request: OutboundRequest) async throws -> OutboundResponse
}

extension HTTPFetching {
    /// `send(_:)` for a protocol client with its own error: a cancelled call throws `cancelled`, any other failure
    /// to get an answer `transport` of its description.
    package func send<Failure: Error>(
        _ request: OutboundRequest, cancelled: Failure, transport: (String) -> Failure
    ) async throws(Failure) -> OutboundResponse {
        do {
            return try await send(request)
        } catch is CancellationError {
            throw cancelled
        } catch let error as HTTPClientError {
            throw transport(error.description)
        } catch {
            throw transport("\(type(of: error)) error")
        }
    }
}
