import AuthHandlerCore
import AuthHandlerCrypto
import AuthHandlerProtocols
import Foundation

/// Builds and signs the fake IdP's ID tokens (RS256; ES256 for `short-coordinate-key`), spoiling them as a queued
/// failure asks.
struct FakeIDTokenIssuer {
    /// The `iss` a `wrong-iss` failure puts in an ID token or an authorization response.
    static let wrongIssuer = "http://wrong-issuer.invalid/oidc"
    /// The `aud` a `wrong-aud` failure puts in an ID token.
    static let wrongAudience = "some-other-client"
    /// How far in the past an `expired-id-token` failure puts `exp` (and `iat` another hour before).
    static let expiredBySeconds = 3600

    /// The issuer identifier that goes in `iss`.
    var issuer: String
    /// The current signing key; its `kid` goes in the header.
    var key: SigningKey
    /// Seconds from `iat` to `exp`.
    var lifetimeSeconds: Int

    /// A compact JWS for `user`, issued to `clientID` at `now`, with a queued `failure` applied.
    func issue(
        user: FakeUser, clientID: String, nonce: String?, authTime: Date, now: Date, failure: FakeFailureKind?
    ) throws -> String {
        var issuedAt = Int(now.timeIntervalSince1970)
        var expiresAt = issuedAt + lifetimeSeconds
        if failure == .expiredIDToken {
            expiresAt = issuedAt - Self.expiredBySeconds
            issuedAt = expiresAt - lifetimeSeconds - Self.expiredBySeconds
        }
        var claims: [String: Any] = [
            "iss": failure == .wrongIssuer ? Self.wrongIssuer : issuer,
            "sub": user.id,
            "aud": failure == .wrongAudience ? Self.wrongAudience : clientID,
            "exp": expiresAt,
            "iat": issuedAt,
            "auth_time": min(Int(authTime.timeIntervalSince1970), issuedAt),
            "email": user.email,
            "email_verified": true,
            "name": user.displayName,
        ]
        if failure == .wrongNonce {
            claims["nonce"] = "wrong-" + (try SecureRandom.base64URLString(byteCount: 12))
        } else if let nonce {
            claims["nonce"] = nonce
        }
        let payload = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
        if failure == .unsignedIDToken {
            return try CompactJWS.unsigned(payload: payload)
        }
        let header = JOSEHeader(alg: key.algorithm.rawValue, kid: key.publicKey.keyID, typ: "JWT")
        let token = try CompactJWS.sign(header: header, payload: payload, key: key)
        return failure == .badSignature ? Self.flippingSignature(of: token) : token
    }

    /// The same token with every signature byte inverted: still well formed, never valid.
    static func flippingSignature(of token: String) -> String {
        guard let dot = token.lastIndex(of: "."),
            let signature = Base64.urlDecode(String(token[token.index(after: dot)...]))
        else { return token }
        return token[...dot] + Base64.urlEncode(signature.map { $0 ^ 0xFF })
    }
}
