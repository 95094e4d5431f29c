import Foundation
import Synchronization

@testable import AuthHandlerCore
@testable import AuthHandlerCrypto
@testable import AuthHandlerHTTP
@testable import AuthHandlerProtocols
@testable import AuthHandlerStore
@testable import AuthHandlerSystem
@testable import auth_handler

/// An `HTTPFetching` fake serving JSON documents from a dictionary by URL, counting requests per URL and keeping them.
final class OIDCFakeHTTP: HTTPFetching {
    private let state: Mutex<(responses: [String: HTTPResponse], counts: [String: Int], requests: [HTTPRequest])>
    /// When set, every request waits for it before answering (for coalescing tests).
    private let gate: HTTPTestGate?

    init(_ responses: [String: HTTPResponse] = [:], gate: HTTPTestGate? = nil) {
        state = Mutex((responses, [:], []))
        self.gate = gate
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let response = state.withLock { state in
            state.counts[request.url, default: 0] += 1
            state.requests.append(request)
            return state.responses[request.url]
        }
        if let gate { await gate.wait() }
        return response ?? HTTPResponse(status: 404)
    }

    /// Serves `value` as a 200 JSON answer at `url`.
    func serve(_ url: String, json value: JSONValue) {
        let body = (try? JSONEncoder().encode(value)).map { [UInt8]($0) } ?? []
        serve(url, HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: body))
    }

    func serve(_ url: String, _ response: HTTPResponse) {
        state.withLock { $0.responses[url] = response }
    }

    /// Serves a JWKS of `keys` at `url`.
    func serveKeys(_ url: String, _ keys: [JWK]) {
        let body = (try? JSONEncoder().encode(["keys": keys])).map { [UInt8]($0) } ?? []
        serve(url, HTTPResponse(status: 200, body: body))
    }

    func fetchCount(_ url: String) -> Int {
        state.withLock { $0.counts[url, default: 0] }
    }

    /// The requests sent to `url` so far, in order.
    func requests(to url: String) -> [HTTPRequest] {
        state.withLock { $0.requests.filter { $0.url == url } }
    }
}

/// A settable clock; `calls` counts reads, and `whenCalled(times:)` opens a gate after that many reads.
final class OIDCTestClock: Sendable {
    private let state: Mutex<(now: Date, calls: Int, target: Int, gate: HTTPTestGate?)>

    init(_ now: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        state = Mutex((now, 0, 0, nil))
    }

    var now: Date { state.withLock { $0.now } }

    func advance(by seconds: TimeInterval) {
        state.withLock { $0.now += seconds }
    }

    /// The closure the actors under test read.
    var read: @Sendable () -> Date {
        { [self] in
            let (now, gate) = state.withLock { state -> (Date, HTTPTestGate?) in
                state.calls += 1
                return (state.now, state.calls == state.target ? state.gate : nil)
            }
            gate?.open()
            return now
        }
    }

    /// A gate that opens on the `times`-th read from now on.
    func gate(afterReads times: Int) -> HTTPTestGate {
        let gate = HTTPTestGate()
        state.withLock { state in
            state.target = state.calls + times
            state.gate = gate
        }
        return gate
    }
}

/// Keys, claims and signing for ID-token tests.
enum OIDCTestTokens {
    static let issuer = "https://idp.example"
    static let clientID = "client-123"
    static let nonce = "n-0S6_WzA2Mj"
    static let jwksURI = "https://idp.example/jwks"

    /// A claims set that passes every check at `now`.
    static func claims(now: Date, _ changes: [String: JSONValue?] = [:]) -> [String: JSONValue] {
        let seconds = now.timeIntervalSince1970.rounded(.down)
        var claims: [String: JSONValue] = [
            "iss": .string(issuer), "sub": .string("248289761001"), "aud": .string(clientID),
            "exp": .number(seconds + 600), "iat": .number(seconds - 10), "nonce": .string(nonce),
            "email": .string("alice@example.com"), "email_verified": .bool(true), "name": .string("Alice"),
        ]
        for (name, value) in changes { claims[name] = value }
        return claims
    }

    /// A compact JWS of `claims` signed by `key`, with `kid` from the key unless `header` says otherwise.
    static func sign(_ claims: [String: JSONValue], key: SigningKey, header: JOSEHeader? = nil) throws -> String {
        let header = header ?? JOSEHeader(alg: key.algorithm.rawValue, kid: key.publicKey.keyID)
        return try CompactJWS.sign(header: header, payload: try payload(claims), key: key)
    }

    static func payload(_ claims: [String: JSONValue]) throws -> Data {
        try JSONEncoder().encode(JSONValue.object(claims))
    }

    /// Expectations matching `claims(now:)`.
    static func expectations(now: Date, algorithms: [JWSAlgorithm] = [.rs256]) -> IDTokenExpectations {
        IDTokenExpectations(
            issuer: issuer, clientID: clientID, nonce: nonce, jwksURI: jwksURI, now: now,
            allowedAlgorithms: algorithms)
    }
}

/// Runs `body` and returns the `OIDCError` it threw, or nil when it returned.
func oidcError<T>(_ body: () async throws(OIDCError) -> T) async -> OIDCError? {
    do {
        _ = try await body()
        return nil
    } catch {
        return error
    }
}
