import Foundation

/// An HTTP response produced by a server handler.
package struct ServerResponse: Sendable {
    /// The status code, e.g. 200.
    package var status: Int
    /// Header fields to send; `Content-Length` is added by the server.
    package var headers: HTTPHeaders
    /// The body bytes.
    package var body: [UInt8]

    package init(status: Int = 200, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A `text/plain; charset=utf-8` response.
    package static func text(_ text: String, status: Int = 200) -> ServerResponse {
        ServerResponse(
            status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Array(text.utf8))
    }

    /// A `text/html; charset=utf-8` response.
    package static func html(_ html: String, status: Int = 200) -> ServerResponse {
        ServerResponse(status: status, headers: ["Content-Type": "text/html; charset=utf-8"], body: Array(html.utf8))
    }

    /// An `application/json` response holding `value`, its members sorted by name (``JSONWritable``).
    package static func json(_ value: some JSONWritable, status: Int = 200) -> ServerResponse {
        ServerResponse(
            status: status, headers: ["Content-Type": "application/json"], body: value.serialized(sortingKeys: true))
    }

    /// A redirect (302 by default; 303 after a POST) to `location`, with an empty body.
    package static func redirect(to location: String, status: Int = 302) -> ServerResponse {
        ServerResponse(status: status, headers: ["Location": location])
    }
}
