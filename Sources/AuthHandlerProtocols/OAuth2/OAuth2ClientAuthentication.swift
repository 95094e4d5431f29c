import AuthHandlerCrypto
import AuthHandlerHTTP

/// How the client authenticates at the token endpoint (RFC 6749 §2.3, OIDC Core §9).
///
/// The secret is the plain value, revealed by the caller when it builds this; `description`, `debugDescription`
/// and `dump` show only the method's name.
package enum OAuth2ClientAuthentication: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// HTTP Basic with the form-urlencoded id and secret (RFC 6749 §2.3.1).
    case clientSecretBasic(String)
    /// `client_id` and `client_secret` in the form body.
    case clientSecretPost(String)
    /// A public client: `client_id` in the body, no secret; PKCE alone binds the code.
    case none

    /// The method's registered name (`client_secret_basic`, `client_secret_post`, `none`).
    package var methodName: String {
        switch self {
        case .clientSecretBasic: "client_secret_basic"
        case .clientSecretPost: "client_secret_post"
        case .none: "none"
        }
    }

    package var description: String { methodName }

    package var debugDescription: String { methodName }

    package var customMirror: Mirror { Mirror(self, children: [:]) }

    /// The `Authorization` value for `clientSecretBasic`: `Basic base64(urlencode(id) ":" urlencode(secret))`.
    ///
    /// RFC 6749 §2.3.1 form-encodes both before joining them, so a `:` in the id or a `+` in the secret
    /// survives; many clients skip this and fail with secrets that contain such characters.
    package static func basicAuthorization(clientID: String, secret: String) -> String {
        let joined = FormURLEncoding.percentEncode(clientID) + ":" + FormURLEncoding.percentEncode(secret)
        return "Basic " + Base64.encode(Array(joined.utf8))
    }
}
