import AuthHandlerHTTP
import AuthHandlerProtocols

/// The credential an identity provider issued, as the result JSON carries it (HTTP-API.md §3.3 `credential`).
///
/// OAuth 1.0a fills `accessToken` and `secret`; OAuth 2 `accessToken` (and the optional members); OIDC also
/// `idToken`. Absent members are written as JSON `null`, as HTTP-API.md §3.3 shows.
package struct IdPCredential: Sendable, Hashable {
    package var accessToken: String?
    /// OAuth 1.0a token secret.
    package var secret: String?
    package var idToken: String?
    package var refreshToken: String?
    /// Seconds until `accessToken` expires, as the IdP said.
    package var expiresIn: Int?
    /// Scopes granted, space-separated as the IdP said.
    package var scope: String?
    /// OIDC: the raw nonce of the sign-in, whose lowercase hex SHA-256 the provider was sent and put in `idToken`'s
    /// `nonce` claim (`OIDCNonce`); what Firebase's `rawNonce` and `signInWithIdp`'s `postBody` take. Nil for OAuth
    /// 1.0a and plain OAuth 2.
    package var nonce: String?

}

extension IdPCredential: JSONWritable, JSONReadable {
    /// The credential as the result JSON carries it (HTTP-API.md §3.3), every member present, absent ones `null`.
    package var json: JSONValue { .object(members) }

    /// The members of ``json``.
    var members: [String: JSONValue] {
        [
            "accessToken": .nullable(accessToken), "secret": .nullable(secret), "idToken": .nullable(idToken),
            "refreshToken": .nullable(refreshToken), "expiresIn": expiresIn.map { .integer(Int64($0)) } ?? .null,
            "scope": .nullable(scope), "nonce": .nullable(nonce),
        ]
    }

    /// The credential in `json`: absent and `null` members alike nil, any member of the wrong type refused.
    package init?(json: JSONValue) {
        guard case .object(let members) = json,
            let accessToken = members["accessToken"].optionalString,
            let secret = members["secret"].optionalString,
            let idToken = members["idToken"].optionalString,
            let refreshToken = members["refreshToken"].optionalString,
            let expiresIn = members["expiresIn"].optionalInt,
            let scope = members["scope"].optionalString,
            let nonce = members["nonce"].optionalString
        else { return nil }
        self.init(
            accessToken: accessToken, secret: secret, idToken: idToken, refreshToken: refreshToken,
            expiresIn: expiresIn, scope: scope, nonce: nonce)
    }
}

extension IdPCredential {
    /// The credential of an OAuth 2 / OpenID Connect token answer.
    package init(_ answer: OAuth2TokenClient.Answer) {
        self.init(
            accessToken: answer.accessToken, idToken: answer.idToken, refreshToken: answer.refreshToken,
            expiresIn: answer.expiresIn, scope: answer.scope)
    }
}
