import Foundation
import TestSupport

@testable import AuthHandlerCrypto
@testable import AuthHandlerHTTP
@testable import AuthHandlerProtocols

extension ScriptedHTTP {
    /// Serves a JWKS of `keys` at `url`.
    func serveKeys(_ url: String, _ keys: [JWK]) {
        let body = JSONValue.object(["keys": .array(keys.map(\.json))]).serialized
        serve(url, OutboundResponse(status: 200, body: body))
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
        Data(JSONValue.object(claims).serialized)
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
