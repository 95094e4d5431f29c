import AuthHandlerCore
import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerProtocols
import AuthHandlerSystem
import Foundation
import TestSupport
import Testing

@testable import FakeIdP

/// The default clients and helpers the OIDC endpoint tests share.
enum FakeOIDC {
    static let clientID = "fake-client-id"
    static let clientSecret = "fake-client-secret"
    static let publicClientID = "fake-public-client"
    /// Accepted by the default configuration: a loopback `/__/auth/handler` URL.
    static let redirectURI = "http://127.0.0.1:4000/__/auth/handler"
    /// An RFC 7636 Appendix B verifier and its S256 challenge.
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

    /// Authorization request parameters for the confidential client, auto-approved as alice.
    static func authorizeFields(
        clientID: String = clientID, state: String = "state-123", nonce: String? = "nonce-456",
        loginHint: String? = "alice", extra: [URLFormField] = []
    ) -> [URLFormField] {
        var fields = [
            URLFormField(name: "response_type", value: "code"),
            URLFormField(name: "client_id", value: clientID),
            URLFormField(name: "redirect_uri", value: redirectURI),
            URLFormField(name: "scope", value: "openid email profile"),
            URLFormField(name: "state", value: state),
        ]
        if let nonce { fields.append(URLFormField(name: "nonce", value: nonce)) }
        if let loginHint { fields.append(URLFormField(name: "login_hint", value: loginHint)) }
        return fields + extra
    }

    /// The public client's parameters, with the S256 challenge of `verifier`.
    static func publicAuthorizeFields(extra: [URLFormField] = []) -> [URLFormField] {
        authorizeFields(
            clientID: publicClientID,
            extra: [
                URLFormField(name: "code_challenge", value: challenge),
                URLFormField(name: "code_challenge_method", value: "S256"),
            ] + extra)
    }

    /// The fields for redeeming `code` (client authentication not included).
    static func codeGrant(_ code: String, redirectURI: String = redirectURI, verifier: String? = nil) -> [URLFormField]
    {
        var fields = [
            URLFormField(name: "grant_type", value: "authorization_code"),
            URLFormField(name: "code", value: code),
            URLFormField(name: "redirect_uri", value: redirectURI),
        ]
        if let verifier { fields.append(URLFormField(name: "code_verifier", value: verifier)) }
        return fields
    }

    /// `Authorization: Basic` for `id` and `secret`, each form-urlencoded first (RFC 6749 §2.3.1).
    static func basic(_ id: String = clientID, _ secret: String = clientSecret) -> HTTPHeaders {
        let credentials = FormURLEncoding.percentEncode(id) + ":" + FormURLEncoding.percentEncode(secret)
        return ["Authorization": "Basic " + Base64.encode(Array(credentials.utf8))]
    }

    /// Decodes the HTML entities `LoginPage.escape` produces.
    static func unescapeHTML(_ text: String) -> String {
        text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    /// The `<input type="hidden">` fields of a login page or form_post page, unescaped, in order.
    static func hiddenFields(_ html: String) -> [URLFormField] {
        let pattern = #"<input type="hidden" name="([^"]*)" value="([^"]*)">"#
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
        let range = NSRange(html.startIndex..., in: html)
        return regex.matches(in: html, range: range).compactMap { match in
            guard let name = Range(match.range(at: 1), in: html), let value = Range(match.range(at: 2), in: html)
            else { return nil }
            return URLFormField(name: unescapeHTML(String(html[name])), value: unescapeHTML(String(html[value])))
        }
    }

    /// The `action` of the first form on a page, unescaped.
    static func formAction(_ html: String) -> String? {
        guard let start = html.range(of: #"<form method="post" action=""#),
            let end = html[start.upperBound...].firstIndex(of: "\"")
        else { return nil }
        return unescapeHTML(String(html[start.upperBound..<end]))
    }
}

/// A decoded ID token and whether its signature verifies against a JWKS.
struct InspectedIDToken {
    var jws: CompactJWS
    var claims: [String: Any]
    /// True when the header's `kid` is in the JWKS and that key verifies the RS256 signature.
    var signatureVerifies: Bool

    init(_ token: String, keys: [JWK]) throws {
        jws = try CompactJWS(parsing: token)
        claims = try #require(try JSONSerialization.jsonObject(with: Data(jws.payload)) as? [String: Any])
        let kid = jws.header.kid
        if jws.header.alg == "RS256", let jwk = keys.first(where: { $0.kid == kid }) {
            let key = try PublicKey(jwk: jwk)
            signatureVerifies = key.verify(.rs256, signature: jws.signature, message: jws.signingInput)
        } else {
            signatureVerifies = false
        }
    }

    func string(_ name: String) -> String? { claims[name] as? String }
    func number(_ name: String) -> Int? { (claims[name] as? NSNumber)?.intValue }
}

extension FakeIdP {
    /// `GET /oidc/authorize` with `fields`.
    func authorize(_ client: HTTPClient, _ fields: [URLFormField]) async throws -> OutboundResponse {
        try await client.get(issuer + "/authorize?" + FormURLEncoding.encode(fields))
    }

    /// Authorizes with `fields` (auto-approved) and returns the code from the redirect.
    func code(_ client: HTTPClient, _ fields: [URLFormField] = FakeOIDC.authorizeFields()) async throws -> String {
        let response = try await authorize(client, fields)
        #expect(response.status == 302)
        return try #require(response.locationQuery.first(named: "code"))
    }

    /// `POST /oidc/token` with `fields` and `headers`.
    func token(_ client: HTTPClient, _ fields: [URLFormField], headers: HTTPHeaders = [:]) async throws
        -> OutboundResponse
    {
        try await client.postForm(issuer + "/token", fields, headers: headers)
    }

    /// Redeems a fresh code of the confidential client (basic auth) and returns the token response JSON.
    func confidentialTokens(_ client: HTTPClient, nonce: String? = "nonce-456") async throws -> [String: Any] {
        let code = try await code(client, FakeOIDC.authorizeFields(nonce: nonce))
        let response = try await token(client, FakeOIDC.codeGrant(code), headers: FakeOIDC.basic())
        #expect(response.status == 200, "\(response.text)")
        return try #require(response.jsonObject)
    }

    /// The keys currently in `GET /oidc/jwks`.
    func jwks(_ client: HTTPClient) async throws -> [JWK] {
        struct KeySet: Decodable { var keys: [JWK] }
        let response = try await client.get(issuer + "/jwks")
        #expect(response.status == 200)
        return try JSONDecoder().decode(KeySet.self, from: Data(response.body)).keys
    }

    /// Queues a failure through the control API, as an out-of-process test would.
    func queueThroughControlAPI(_ client: HTTPClient, _ json: String) async throws {
        let response = try await client.postJSON(baseURL + "/__fake/failures", json)
        #expect(response.status == 200, "\(response.text)")
    }
}
