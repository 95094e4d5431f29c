import AuthHandlerCore
import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerProtocols
import Foundation
import TestSupport
import Testing

@testable import FakeIdP

/// Calls to the fake sign-in backend and the IdP credentials it accepts.
enum SignInWithIdp {
    static let apiKey = "test-api-key"
    static let requestUri = "http://127.0.0.1:8080/__/auth/handler"

    static func url(_ idp: FakeIdP, key: String? = apiKey) -> String {
        idp.baseURL + "/identitytoolkit/v1/accounts:signInWithIdp" + (key.map { "?key=\($0)" } ?? "")
    }

    /// POSTs `accounts:signInWithIdp` with `postBody` and Identity Toolkit's usual members, overridden by `extra`.
    static func call(
        _ idp: FakeIdP, _ client: HTTPClient, postBody: [URLFormField], extra: [String: Any] = [:],
        key: String? = apiKey
    ) async throws -> OutboundResponse {
        var body: [String: Any] = [
            "requestUri": requestUri, "postBody": FormURLEncoding.encode(postBody), "returnSecureToken": true,
        ]
        body.merge(extra) { _, new in new }
        let json = try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])
        return try await client.postJSON(url(idp, key: key), String(decoding: json, as: UTF8.self))
    }

    /// `postBody` for Twitter with a real OAuth 1.0a access token issued to `userID`.
    static func twitter(_ idp: FakeIdP, userID: String = "1001") async throws -> [URLFormField] {
        let token = try await idp.state.issueOAuth1AccessToken(consumerKey: "fake-consumer-key", userID: userID)
        return [
            URLFormField(name: "providerId", value: "twitter.com"),
            URLFormField(name: "access_token", value: token.token),
            URLFormField(name: "oauth_token_secret", value: token.secret),
        ]
    }

    /// `postBody` for an OAuth 2 provider with a real access token issued to `userID`.
    static func oauth2(_ idp: FakeIdP, providerID: String = "github.com", userID: String = "1001") async throws
        -> [URLFormField]
    {
        let tokens = try await idp.state.issueTokens(
            for: FakeOAuth2Grant(clientID: "fake-client-id", scope: "user", userID: userID))
        return [
            URLFormField(name: "providerId", value: providerID),
            URLFormField(name: "access_token", value: tokens.access),
        ]
    }

    /// The raw nonce of the ID tokens below, and its lowercase hex SHA-256, the `nonce` claim they carry
    /// (`printf %s n-0S6_WzA2Mj | sha256sum`): Firebase's rule, HTTP-API.md §4.1.
    static let rawNonce = "n-0S6_WzA2Mj"
    static let hashedNonce = "0823a09b54cb9381561068b00aaf4e539b3f54604631d3e6a820879b6b04cc19"

    /// `postBody` for an OIDC provider with `idToken` and, unless nil, the raw nonce.
    static func oidc(_ idToken: String, providerID: String = "google.com", nonce: String? = rawNonce)
        -> [URLFormField]
    {
        var fields = [
            URLFormField(name: "providerId", value: providerID), URLFormField(name: "id_token", value: idToken),
        ]
        if let nonce { fields.append(URLFormField(name: "nonce", value: nonce)) }
        return fields
    }

    /// An ID token as the fake IdP's token endpoint issues it, with `changes` applied to the claims.
    static func idToken(
        _ idp: FakeIdP, userID: String = "1001", changes: [String: Any] = [:], key: SigningKey? = nil
    ) async throws -> String {
        let now = Int(await idp.state.now().timeIntervalSince1970)
        var claims: [String: Any] = [
            "iss": idp.issuer, "sub": userID, "aud": "fake-client-id", "iat": now, "exp": now + 3600,
            "email": "user\(userID)@example.com", "email_verified": true, "name": "User \(userID)",
            "nonce": hashedNonce,
        ]
        claims.merge(changes) { _, new in new }
        let signingKey: SigningKey
        if let key { signingKey = key } else { signingKey = await idp.state.signingKey }
        return try sign(claims, key: signingKey)
    }

    static func sign(_ claims: [String: Any], key: SigningKey) throws -> String {
        let payload = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
        return try CompactJWS.sign(
            header: JOSEHeader(alg: "RS256", kid: key.publicKey.keyID), payload: payload, key: key)
    }

    /// The claims of a JWT, after checking its signature with `key`.
    static func verifiedClaims(_ token: String, key: SigningKey) throws -> [String: Any] {
        let jws = try CompactJWS(parsing: token)
        #expect(key.publicKey.verify(.rs256, signature: jws.signature, message: jws.signingInput))
        return try #require(try JSONSerialization.jsonObject(with: Data(jws.payload)) as? [String: Any])
    }
}
