import AuthHandlerCore
import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerProtocols
import Foundation

/// OAuth 2 / OIDC discovery, JWKS and userinfo under `/oidc/`; `authorize` and `token` have their own files.
extension FakeIdPRouter {
    /// Scopes listed in discovery; other well-formed scope tokens are accepted and granted as asked.
    static let oidcScopes = ["openid", "email", "profile"]

    /// `GET /oidc/.well-known/openid-configuration` (OpenID Connect Discovery 1.0 §3).
    func oidcDiscovery(_ request: ServerRequest, failure: FakeFailureKind?) async -> ServerResponse {
        guard request.method == "GET" else { return Self.methodNotAllowed(request, allowed: "GET") }
        if case .oauthError(let code, let description) = failure {
            return FakeOIDCError(code: code, description: description ?? "queued failure").tokenResponse
        }
        let issuer = self.issuer
        return Self.json([
            "issuer": failure == .wrongIssuer ? FakeIDTokenIssuer.wrongIssuer : issuer,
            "authorization_endpoint": issuer + "/authorize",
            "token_endpoint": issuer + "/token",
            "userinfo_endpoint": issuer + "/userinfo",
            "jwks_uri": issuer + "/jwks",
            "response_types_supported": ["code"],
            "response_modes_supported": ["query", "form_post"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": [JWSAlgorithm.rs256.rawValue],
            "scopes_supported": Self.oidcScopes,
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
            "code_challenge_methods_supported": [PKCE.challengeMethod],
            "claims_supported": [
                "iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "email", "email_verified", "name",
                "preferred_username",
            ],
            "authorization_response_iss_parameter_supported": true,
        ])
    }

    /// `GET /oidc/jwks`: the current public key only, so a rotated key is gone at once.
    func oidcJWKS(_ request: ServerRequest, failure: FakeFailureKind?) async -> ServerResponse {
        guard request.method == "GET" else { return Self.methodNotAllowed(request, allowed: "GET") }
        if case .oauthError(let code, let description) = failure {
            return FakeOIDCError(code: code, description: description ?? "queued failure").tokenResponse
        }
        var jwk = await state.signingKey.publicKey.jwk
        jwk.alg = JWSAlgorithm.rs256.rawValue
        jwk.use = "sig"
        var keys = [jwk]
        if let defective = await state.shortCoordinateKey?.published { keys.append(defective) }
        return ServerResponse.json(JSONValue.object(["keys": .array(keys.map(\.json))]))
    }

    /// `GET|POST /oidc/userinfo` with `Authorization: Bearer` (OIDC Core §5.3, RFC 6750 §2.1).
    func oidcUserInfo(_ request: ServerRequest, failure: FakeFailureKind?) async -> ServerResponse {
        guard request.method == "GET" || request.method == "POST" else {
            return Self.methodNotAllowed(request, allowed: "GET, POST")
        }
        if case .oauthError(let code, let description) = failure {
            return Self.oidcBearerError(code: code, description: description ?? "queued failure")
        }
        let authorization = request.headers.values(for: "Authorization")
        guard authorization.count == 1, let header = authorization.first else {
            return Self.oidcBearerError(
                code: "invalid_token",
                description: authorization.isEmpty
                    ? "send the access token as Authorization: Bearer TOKEN" : "send exactly one Authorization header")
        }
        guard let token = Self.oidcBearerToken(header) else {
            return Self.oidcBearerError(
                code: "invalid_token", description: "the Authorization header is not Bearer TOKEN")
        }
        guard let grant = await state.accessToken(token)?.grant else {
            return Self.oidcBearerError(code: "invalid_token", description: "the access token is unknown or expired")
        }
        guard let user = state.configuration.user(id: grant.userID) else {
            return Self.oidcBearerError(code: "invalid_token", description: "the token's user is no longer configured")
        }
        return Self.json([
            "sub": user.id,
            "email": user.email,
            "email_verified": true,
            "name": user.displayName,
            "preferred_username": user.name,
            "id": Self.oidcNumericID(user.id),
            "login": user.name,
        ])
    }

    /// The token of an `Authorization: Bearer TOKEN` value (scheme case-insensitive, RFC 6750 §2.1 `b64token`).
    static func oidcBearerToken(_ header: String) -> String? {
        let parts = header.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].lowercased() == "bearer", !parts[1].isEmpty else { return nil }
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/=".utf8)
        guard parts[1].utf8.allSatisfy({ allowed.contains($0) }) else { return nil }
        return String(parts[1])
    }

    /// A resource-server error (RFC 6750 §3): JSON body and a Bearer challenge naming the error.
    static func oidcBearerError(code: String, description: String) -> ServerResponse {
        let status =
            switch code {
            case "invalid_token": 401
            case "insufficient_scope": 403
            default: 400
            }
        var response = json(["error": code, "error_description": description], status: status)
        let challenge =
            #"Bearer realm="fake-idp", error=""# + Self.oidcQuotable(code) + #"", error_description=""#
            + Self.oidcQuotable(description) + "\""
        response.headers.set(name: "WWW-Authenticate", value: challenge)
        return response
    }

    /// `text` safe inside a header quoted-string (RFC 9110 §5.6.4): printable ASCII without `"` or `\`.
    static func oidcQuotable(_ text: String) -> String {
        String(
            text.unicodeScalars.map { scalar in
                (0x20...0x7E).contains(scalar.value) && scalar != "\"" && scalar != "\\" ? Character(scalar) : " "
            })
    }

    /// A GitHub-style numeric `id`: the user id when it is a number, else a stable FNV-1a hash of it.
    static func oidcNumericID(_ id: String) -> Int {
        if let number = Int(id), number >= 0 { return number }
        var hash: UInt32 = 2_166_136_261
        for byte in id.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return Int(hash & 0x7FFF_FFFF)
    }
}
