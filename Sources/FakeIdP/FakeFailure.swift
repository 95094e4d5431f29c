import AuthHandlerCore
import AuthHandlerHTTP

/// An endpoint of the fake IdP that a failure can be queued for.
package enum FakeEndpoint: String, Codable, Sendable, CaseIterable {
    case oauth1RequestToken = "oauth1/request_token"
    case oauth1Authorize = "oauth1/authorize"
    case oauth1AccessToken = "oauth1/access_token"
    case oauth1VerifyCredentials = "oauth1/account/verify_credentials.json"
    case oidcDiscovery = "oidc/.well-known/openid-configuration"
    case oidcAuthorize = "oidc/authorize"
    case oidcToken = "oidc/token"
    case oidcUserInfo = "oidc/userinfo"
    case oidcJWKS = "oidc/jwks"
    case signInWithIdp = "identitytoolkit/v1/accounts:signInWithIdp"
}

/// What goes wrong on the next call(s) of an endpoint.
package enum FakeFailureKind: Sendable, Equatable {
    /// An OAuth error response: on `authorize` a redirect with `error=`, elsewhere a 400 JSON/form body.
    case oauthError(code: String, description: String?)
    /// A bare HTTP status with a short body.
    case httpStatus(Int)
    /// Waits this long, then answers normally (for client time-outs).
    case delay(milliseconds: Int)
    /// OAuth 1.0a: the client's signature is refused. OIDC `token`: the `id_token` signature is corrupted.
    case badSignature
    /// `authorize`: a wrong RFC 9207 `iss` parameter. `token`: an `id_token` with a wrong `iss`.
    case wrongIssuer
    /// `token`: an `id_token` whose `nonce` is not the one requested.
    case wrongNonce
    /// `token`: an `id_token` for another audience.
    case wrongAudience
    /// `token`: an `id_token` that expired an hour ago.
    case expiredIDToken
    /// `token`: an `id_token` with `alg: none` and no signature.
    case unsignedIDToken
    /// Any endpoint: before answering, replace the signing key (new `kid`; the old key leaves the JWKS).
    case rotateKeys
    /// `token`: an `id_token` signed ES256 by a P-256 key whose x coordinate begins with a zero byte, which the JWKS
    /// then publishes (until a reset) as a careless IdP does: with that byte dropped, 31 bytes where RFC 7518
    /// §6.2.1.2 requires 32.
    case shortCoordinateKey
    /// OAuth 1.0a `request_token`: a token answered without `oauth_callback_confirmed`, as a server that predates
    /// OAuth 1.0a (RFC 5849 §2.1) does; a client must refuse it.
    case callbackUnconfirmed

    /// The control API's name for the kind.
    package var name: String {
        switch self {
        case .oauthError: "oauth-error"
        case .httpStatus: "http-status"
        case .delay: "delay"
        case .badSignature: "bad-signature"
        case .wrongIssuer: "wrong-iss"
        case .wrongNonce: "wrong-nonce"
        case .wrongAudience: "wrong-aud"
        case .expiredIDToken: "expired-id-token"
        case .unsignedIDToken: "unsigned-id-token"
        case .rotateKeys: "rotate-keys"
        case .shortCoordinateKey: "short-coordinate-key"
        case .callbackUnconfirmed: "callback-unconfirmed"
        }
    }
}

/// A failure queued for the next `count` calls of `endpoint`.
package struct FakeFailure: Sendable, Equatable {
    package var endpoint: FakeEndpoint
    package var kind: FakeFailureKind
    package var count: Int

    package init(endpoint: FakeEndpoint, kind: FakeFailureKind, count: Int = 1) {
        self.endpoint = endpoint
        self.kind = kind
        self.count = count
    }
}

extension FakeFailure: Decodable {
    enum CodingKeys: String, CodingKey {
        case endpoint, kind, count, error, errorDescription = "error_description", status, delayMs
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        endpoint = try container.decode(FakeEndpoint.self, forKey: .endpoint)
        count = try container.decodeIfPresent(Int.self, forKey: .count) ?? 1
        guard count >= 1 else {
            throw DecodingError.dataCorruptedError(forKey: .count, in: container, debugDescription: "count must be ≥ 1")
        }
        let name = try container.decode(String.self, forKey: .kind)
        switch name {
        case "oauth-error":
            kind = .oauthError(
                code: try container.decodeIfPresent(String.self, forKey: .error) ?? "server_error",
                description: try container.decodeIfPresent(String.self, forKey: .errorDescription))
        case "http-status":
            let status = try container.decode(Int.self, forKey: .status)
            guard (100...599).contains(status) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .status, in: container, debugDescription: "status must be 100–599")
            }
            kind = .httpStatus(status)
        case "delay":
            let milliseconds = try container.decode(Int.self, forKey: .delayMs)
            guard (0...120_000).contains(milliseconds) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .delayMs, in: container, debugDescription: "delayMs must be 0–120000")
            }
            kind = .delay(milliseconds: milliseconds)
        case "bad-signature": kind = .badSignature
        case "wrong-iss": kind = .wrongIssuer
        case "wrong-nonce": kind = .wrongNonce
        case "wrong-aud": kind = .wrongAudience
        case "expired-id-token": kind = .expiredIDToken
        case "unsigned-id-token": kind = .unsignedIDToken
        case "rotate-keys": kind = .rotateKeys
        case "short-coordinate-key": kind = .shortCoordinateKey
        case "callback-unconfirmed": kind = .callbackUnconfirmed
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .kind, in: container,
                debugDescription: "unknown kind '\(name)'; use oauth-error, http-status, delay, bad-signature, "
                    + "wrong-iss, wrong-nonce, wrong-aud, expired-id-token, unsigned-id-token, rotate-keys, "
                    + "short-coordinate-key or callback-unconfirmed")
        }
    }
}

extension FakeFailure: JSONWritable {
    /// The failure as `GET /__fake/failures` lists it: the members `init(from:)` reads.
    package var json: JSONValue {
        var members: [String: JSONValue] = [
            "endpoint": .string(endpoint.rawValue), "kind": .string(kind.name), "count": .integer(Int64(count)),
        ]
        switch kind {
        case .oauthError(let code, let description):
            members["error"] = .string(code)
            if let description { members["error_description"] = .string(description) }
        case .httpStatus(let status): members["status"] = .integer(Int64(status))
        case .delay(let milliseconds): members["delayMs"] = .integer(Int64(milliseconds))
        default: break
        }
        return .object(members)
    }
}

/// Failures waiting for their endpoints, first queued first served, each used `count` times.
struct FakeFailureQueue: Sendable {
    private var queued: [FakeFailure] = []

    mutating func add(_ failure: FakeFailure) {
        queued.append(failure)
    }

    /// Takes one use of the oldest failure queued for `endpoint`, if any.
    mutating func next(for endpoint: FakeEndpoint) -> FakeFailureKind? {
        guard let index = queued.firstIndex(where: { $0.endpoint == endpoint }) else { return nil }
        let kind = queued[index].kind
        queued[index].count -= 1
        if queued[index].count == 0 { queued.remove(at: index) }
        return kind
    }

    mutating func removeAll() {
        queued.removeAll()
    }

    var pending: [FakeFailure] { queued }
}
