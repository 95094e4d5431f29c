import AuthHandlerCore
import AuthHandlerHTTP
import Foundation
import TestSupport
import Testing

@testable import FakeIdP

/// A fake IdP on 127.0.0.1:0 for the duration of `body`, and a real HTTP client (no redirects followed).
func withFakeIdP<T>(
    configuration: FakeIdPConfiguration = FakeIdPConfiguration(),
    _ body: (FakeIdP, HTTPClient) async throws -> T
) async throws -> T {
    let idp = try FakeIdP.start(configuration: configuration)
    let client = try HTTPClient()
    return try await withCleanup({ await idp.stop() }) { try await body(idp, client) }
}

extension HTTPClient {
    /// GET `url`.
    func get(_ url: String, headers: HTTPHeaders = [:]) async throws -> OutboundResponse {
        try await send(OutboundRequest(method: "GET", url: url, headers: headers))
    }

    /// POST `fields` as `application/x-www-form-urlencoded`.
    func postForm(_ url: String, _ fields: [URLFormField], headers: HTTPHeaders = [:]) async throws -> OutboundResponse
    {
        var headers = headers
        headers.set(name: "Content-Type", value: "application/x-www-form-urlencoded")
        return try await send(
            OutboundRequest(
                method: "POST", url: url, headers: headers, body: Array(FormURLEncoding.encode(fields).utf8)))
    }

    /// POST a JSON body.
    func postJSON(_ url: String, _ json: String, headers: HTTPHeaders = [:]) async throws -> OutboundResponse {
        var headers = headers
        headers.set(name: "Content-Type", value: "application/json")
        return try await send(OutboundRequest(method: "POST", url: url, headers: headers, body: Array(json.utf8)))
    }
}
