import AuthHandlerCore
import AuthHandlerHTTP
import Foundation
import Synchronization

/// Sends each request to its endpoint, after recording it and applying any queued failure.
final class FakeIdPRouter: Sendable {
    let state: FakeIdPState
    private let baseURLStorage = Mutex("")

    init(state: FakeIdPState) {
        self.state = state
    }

    /// `http://HOST:PORT`; set once, right after the server has bound its port.
    var baseURL: String { baseURLStorage.withLock { $0 } }
    var issuer: String { baseURL + "/oidc" }

    func setBaseURL(_ url: String) {
        baseURLStorage.withLock { $0 = url }
    }

    func handle(_ request: ServerRequest) async -> ServerResponse {
        guard request.path.hasPrefix("/") else { return Self.notFound(request) }
        let path = String(request.path.dropFirst())
        if path.hasPrefix("__fake/") || path == "__fake" {
            return await handleControl(request, path: path)
        }
        await state.record(
            FakeRecordedRequest(
                method: request.method, path: request.path, query: request.rawQuery,
                headers: Dictionary(request.headers.map { ($0.name, $0.value) }, uniquingKeysWith: { $0 + ", " + $1 }),
                body: String(decoding: request.body, as: UTF8.self), time: await state.now().timeIntervalSince1970))
        if path.isEmpty { return .html(Self.indexPage) }
        let endpointName = path == "oauth1/authenticate" ? FakeEndpoint.oauth1Authorize.rawValue : path
        guard let endpoint = FakeEndpoint(rawValue: endpointName) else { return Self.notFound(request) }

        var failure = await state.nextFailure(for: endpoint)
        switch failure {
        case .httpStatus(let status):
            return .text("fake-idp: queued failure: HTTP \(status) from \(endpoint.rawValue)\n", status: status)
        case .delay(let milliseconds):
            try? await Task.sleep(for: .milliseconds(milliseconds))
            failure = nil
        case .rotateKeys:
            do { try await state.rotateKeys() } catch {
                return .text("fake-idp: key rotation failed: \(error)\n", status: 500)
            }
            failure = nil
        default:
            break
        }

        switch endpoint {
        case .oauth1RequestToken: return await oauth1RequestToken(request, failure: failure)
        case .oauth1Authorize: return await oauth1Authorize(request, failure: failure)
        case .oauth1AccessToken: return await oauth1AccessToken(request, failure: failure)
        case .oauth1VerifyCredentials: return await oauth1VerifyCredentials(request, failure: failure)
        case .oidcDiscovery: return await oidcDiscovery(request, failure: failure)
        case .oidcAuthorize: return await oidcAuthorize(request, failure: failure)
        case .oidcToken: return await oidcToken(request, failure: failure)
        case .oidcUserInfo: return await oidcUserInfo(request, failure: failure)
        case .oidcJWKS: return await oidcJWKS(request, failure: failure)
        case .signInWithIdp: return await signInWithIdp(request, failure: failure)
        }
    }

    static func notFound(_ request: ServerRequest) -> ServerResponse {
        .text("fake-idp: no endpoint \(request.method) \(request.path); see GET / for the list\n", status: 404)
    }

    static func methodNotAllowed(_ request: ServerRequest, allowed: String) -> ServerResponse {
        var response = ServerResponse.text(
            "fake-idp: \(request.method) is not allowed on \(request.path); use \(allowed)\n", status: 405)
        response.headers.set(name: "Allow", value: allowed)
        return response
    }

    /// A JSON body from a dictionary of plain JSON values (strings, numbers, bools, arrays, objects, NSNull).
    static func json(_ object: [String: Any], status: Int = 200) -> ServerResponse {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return ServerResponse(status: status, headers: ["Content-Type": "application/json"], body: Array(data))
    }

    static let indexPage = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>auth-handler fake IdP</title></head>
        <body><h1>auth-handler fake IdP</h1><ul>
        <li>OAuth 1.0a: POST /oauth1/request_token, GET /oauth1/authorize, GET /oauth1/authenticate,
            POST /oauth1/access_token, GET /oauth1/account/verify_credentials.json</li>
        <li>OIDC: GET /oidc/.well-known/openid-configuration, GET /oidc/authorize, POST /oidc/token,
            GET /oidc/userinfo, GET /oidc/jwks</li>
        <li>Backend: POST /identitytoolkit/v1/accounts:signInWithIdp?key=API_KEY</li>
        <li>Control: POST|GET|DELETE /__fake/failures, GET|DELETE /__fake/requests, POST /__fake/clock,
            POST /__fake/reset</li>
        </ul></body></html>
        """
}
