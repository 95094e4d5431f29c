/// How the client authenticates at the token endpoint (RFC 6749 §2.3, OIDC Core §9).
public enum OAuth2ClientAuthentication: Sendable, Hashable, CustomStringConvertible {
    /// HTTP Basic with the form-urlencoded id and secret (RFC 6749 §2.3.1).
    case clientSecretBasic(Secret)
    /// `client_id` and `client_secret` in the form body.
    case clientSecretPost(Secret)
    /// A public client: `client_id` in the body, no secret; PKCE alone binds the code.
    case none

    /// The method's registered name (`client_secret_basic`, `client_secret_post`, `none`).
    public var methodName: String {
        switch self {
        case .clientSecretBasic: "client_secret_basic"
        case .clientSecretPost: "client_secret_post"
        case .none: "none"
        }
    }

    public var description: String { methodName }

    /// The `Authorization` value for `clientSecretBasic`: `Basic base64(urlencode(id) ":" urlencode(secret))`.
    ///
    /// RFC 6749 §2.3.1 form-encodes both before joining them, so a `:` in the id or a `+` in the secret
    /// survives; many clients skip this and fail with secrets that contain such characters.
    public static func basicAuthorization(clientID: String, secret: Secret) -> String {
        let joined = FormURLEncoding.percentEncode(clientID) + ":" + FormURLEncoding.percentEncode(secret.reveal())
        return "Basic " + Base64.encode(Array(joined.utf8))
    }
}
