import AuthHandlerHTTP
import Foundation

/// Responses a test scripts, and the views of a response a test reads.
extension OutboundResponse {
    /// A response with a text body and a content type.
    package static func text(_ status: Int, _ body: String, contentType: String) -> OutboundResponse {
        OutboundResponse(status: status, headers: ["Content-Type": contentType], body: Array(body.utf8))
    }

    /// A JSON response.
    package static func json(_ status: Int, _ body: String) -> OutboundResponse {
        text(status, body, contentType: "application/json")
    }

    /// A form-encoded response.
    package static func form(_ status: Int, _ body: String) -> OutboundResponse {
        text(status, body, contentType: "application/x-www-form-urlencoded")
    }

    /// The body as UTF-8 text.
    package var text: String { String(decoding: body, as: UTF8.self) }

    /// The body as JSON, or nil.
    package var json: JSONValue? { JSONValue.parse(body) }

    /// `error.code` of a JSON error answer (HTTP-API.md §3.5).
    package var errorCode: String? { json?["error"]?["code"]?.stringValue }

    /// The body as a JSON object, read by Foundation (a second parser to check the product's JSON against).
    package var jsonObject: [String: Any]? { try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] }

    /// The body decoded as a form (`a=b&c=d`).
    package var formFields: [URLFormField] { (try? FormURLEncoding.decode(bytes: body)) ?? [] }

    /// The query of the `Location` header, decoded as a form.
    package var locationQuery: [URLFormField] {
        guard let location = headers["Location"], let query = location.split(separator: "?", maxSplits: 1).last,
            location.contains("?")
        else { return [] }
        return (try? FormURLEncoding.decode(String(query))) ?? []
    }

    /// Identity Toolkit's `error.message`, when the body is its error shape.
    package var identityToolkitMessage: String? {
        (jsonObject?["error"] as? [String: Any])?["message"] as? String
    }

    /// Whether a refusal of the fake IdP names `check` as the failed check and has the expected status.
    package func isRefusal(_ status: Int, check: String) -> Bool {
        self.status == status && text.contains("\(check) check failed")
    }
}

extension OutboundRequest {
    /// The body decoded as a form.
    package var formFields: [URLFormField] { (try? FormURLEncoding.decode(bytes: body)) ?? [] }
}
