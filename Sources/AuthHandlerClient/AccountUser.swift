import Foundation

/// The signed-in user as the ID token says (docs/ACCOUNTS.md "ID tokens"): its claims decoded **without verifying the
/// signature**. That is enough to show who is signed in; an app's server must verify the token against the daemon's
/// JWKS before it believes any of this.
public struct AccountUser: Sendable, Hashable {
    /// `sub`: the user's id (`localId`).
    public var uid: String
    public var email: String?
    public var emailVerified: Bool
    /// `name`.
    public var displayName: String?
    /// `picture`.
    public var photoURL: URL?
    /// `firebase.sign_in_provider`: `password` or a provider id.
    public var signInProvider: String?
    /// `exp`: when the ID token expires.
    public var expiresAt: Date
    /// `auth_time`: when the user last signed in or reauthenticated.
    public var authTime: Date?
    /// Every claim of the token, custom claims included.
    public var claims: AuthHandlerClient.JSON

    /// The claims of `idToken`, or nil when it is not a JWT whose payload has `sub` and `exp`.
    public init?(idToken: String) {
        let parts = idToken.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Self.base64URLDecoded(parts[1]),
            let claims = try? JSONDecoder().decode(AuthHandlerClient.JSON.self, from: payload),
            let uid = claims["sub"]?.stringValue, let exp = Self.seconds(claims["exp"])
        else { return nil }
        self.uid = uid
        email = claims["email"]?.stringValue
        emailVerified = claims["email_verified"]?.boolValue ?? false
        displayName = claims["name"]?.stringValue
        photoURL = claims["picture"]?.stringValue.flatMap { URL(string: $0) }
        signInProvider = claims["firebase"]?["sign_in_provider"]?.stringValue
        expiresAt = Date(timeIntervalSince1970: exp)
        authTime = Self.seconds(claims["auth_time"]).map { Date(timeIntervalSince1970: $0) }
        self.claims = claims
    }

    private static func seconds(_ value: AuthHandlerClient.JSON?) -> TimeInterval? {
        switch value {
        case .integer(let seconds)?: TimeInterval(seconds)
        case .number(let seconds)?: seconds
        default: nil
        }
    }

    /// RFC 4648 §5 base64url without padding, as JWS uses it (RFC 7515 §2).
    private static func base64URLDecoded(_ text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}
