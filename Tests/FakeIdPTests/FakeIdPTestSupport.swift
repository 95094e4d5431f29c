import AuthHandlerCore
import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerProtocols
import AuthHandlerSystem
import Foundation
import Testing

@testable import FakeIdP

/// A fake IdP on 127.0.0.1:0 for the duration of `body`, and a real HTTP client (no redirects followed).
func withFakeIdP<T>(
    configuration: FakeIdPConfiguration = FakeIdPConfiguration(),
    _ body: (FakeIdP, HTTPClient) async throws -> T
) async throws -> T {
    let idp = try FakeIdP.start(configuration: configuration)
    let client = try HTTPClient()
    do {
        let result = try await body(idp, client)
        await idp.stop()
        return result
    } catch {
        await idp.stop()
        throw error
    }
}

extension HTTPClient {
    /// GET `url`.
    func get(_ url: String, headers: HTTPHeaders = [:]) async throws -> HTTPResponse {
        try await send(HTTPRequest(method: "GET", url: url, headers: headers))
    }

    /// POST `fields` as `application/x-www-form-urlencoded`.
    func postForm(_ url: String, _ fields: [URLFormField], headers: HTTPHeaders = [:]) async throws -> HTTPResponse {
        var headers = headers
        headers.set(name: "Content-Type", value: "application/x-www-form-urlencoded")
        return try await send(
            HTTPRequest(method: "POST", url: url, headers: headers, body: Array(FormURLEncoding.encode(fields).utf8)))
    }

    /// POST a JSON body.
    func postJSON(_ url: String, _ json: String, headers: HTTPHeaders = [:]) async throws -> HTTPResponse {
        var headers = headers
        headers.set(name: "Content-Type", value: "application/json")
        return try await send(HTTPRequest(method: "POST", url: url, headers: headers, body: Array(json.utf8)))
    }
}

extension HTTPResponse {
    /// The body as UTF-8 text.
    var text: String { String(decoding: body, as: UTF8.self) }

    /// The body decoded as a form (`a=b&c=d`).
    var formFields: [URLFormField] { (try? FormURLEncoding.decode(bytes: body)) ?? [] }

    /// The body as a JSON object.
    var jsonObject: [String: Any]? { try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] }

    /// The query items of the `Location` header.
    var locationQuery: [URLFormField] {
        guard let location = headers["Location"], let query = location.split(separator: "?", maxSplits: 1).last,
            location.contains("?")
        else { return [] }
        return (try? FormURLEncoding.decode(String(query))) ?? []
    }
}
