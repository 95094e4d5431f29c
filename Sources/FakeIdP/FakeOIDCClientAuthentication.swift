import AuthHandlerCore
import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerProtocols
import Foundation

/// How a client authenticated at the token endpoint (RFC 6749 §2.3; OIDC Core §9).
enum FakeOIDCClientAuthentication: String, Equatable {
    /// HTTP Basic with the form-urlencoded id and secret (RFC 6749 §2.3.1).
    case clientSecretBasic = "client_secret_basic"
    /// `client_id` and `client_secret` in the form body.
    case clientSecretPost = "client_secret_post"
    /// A public client: `client_id` only; PKCE carries the proof.
    case publicClient = "none"

    /// Authenticates the client of a token request: exactly one method, the right secret, or no secret for a
    /// public client. Throws `invalid_client` (401) or, for a malformed request, `invalid_request`.
    static func authenticate(
        headers: HTTPHeaders, parameters: FakeOIDCParameters, configuration: FakeIdPConfiguration
    ) throws(FakeOIDCError) -> (client: FakeIdPConfiguration.OAuth2Client, method: Self) {
        let authorization = headers.values(for: "Authorization")
        guard authorization.count <= 1 else {
            throw FakeOIDCError(.invalidRequest, "send at most one Authorization header")
        }
        if let header = authorization.first {
            guard let (id, secret) = basicCredentials(header) else {
                throw FakeOIDCError(
                    .invalidClient,
                    "the Authorization header must be Basic base64(urlencode(client_id):urlencode(client_secret))")
            }
            if parameters["client_secret"] != nil {
                throw FakeOIDCError(
                    .invalidRequest, "client_secret is sent both in Authorization and in the body; use one method")
            }
            if let bodyID = parameters["client_id"], bodyID != id {
                throw FakeOIDCError(.invalidClient, "client_id in the body differs from the one in Authorization")
            }
            return (try confidentialClient(id: id, secret: secret, configuration: configuration), .clientSecretBasic)
        }
        guard let id = parameters["client_id"] else {
            throw FakeOIDCError(
                .invalidClient, "no client authentication: use client_secret_basic, client_secret_post or client_id")
        }
        if let secret = parameters["client_secret"] {
            return (try confidentialClient(id: id, secret: secret, configuration: configuration), .clientSecretPost)
        }
        guard let client = configuration.oauth2Client(id: id) else {
            throw FakeOIDCError(.invalidClient, "client_id \"\(id)\" is not registered")
        }
        guard client.secret == nil else {
            throw FakeOIDCError(
                .invalidClient, "client \"\(id)\" is confidential: authenticate with its secret (basic or post)")
        }
        return (client, .publicClient)
    }

    private static func confidentialClient(
        id: String, secret: String, configuration: FakeIdPConfiguration
    ) throws(FakeOIDCError) -> FakeIdPConfiguration.OAuth2Client {
        guard let client = configuration.oauth2Client(id: id) else {
            throw FakeOIDCError(.invalidClient, "client_id \"\(id)\" is not registered")
        }
        guard let expected = client.secret else {
            throw FakeOIDCError(
                .invalidClient, "client \"\(id)\" is public and has no secret; send only client_id and PKCE")
        }
        guard ConstantTime.equals(secret, expected) else {
            throw FakeOIDCError(.invalidClient, "wrong client secret for \"\(id)\"")
        }
        return client
    }

    /// The id and secret of `Basic base64(urlencode(id):urlencode(secret))`, or nil when malformed.
    static func basicCredentials(_ header: String) -> (id: String, secret: String)? {
        let parts = header.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "basic", let decoded = Base64.decode(String(parts[1])),
            let text = String(validating: decoded, as: UTF8.self), let colon = text.firstIndex(of: ":"),
            let id = FormURLEncoding.decodeComponent(text[..<colon]),
            let secret = FormURLEncoding.decodeComponent(text[text.index(after: colon)...]),
            !id.isEmpty
        else { return nil }
        return (id, secret)
    }
}
