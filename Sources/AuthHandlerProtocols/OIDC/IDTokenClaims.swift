import AuthHandlerHTTP
import Foundation

/// The claims of an accepted ID token (OIDC Core §2, §5.1).
package struct IDTokenClaims: Sendable, Equatable {
    package var iss: String
    package var sub: String
    package var aud: [String]
    package var exp: Date
    package var iat: Date
    package var nonce: String?
    package var azp: String?
    package var authTime: Date?
    package var email: String?
    /// `email_verified`, also when a provider sends it as the string `"true"` or `"false"` (Apple does).
    package var emailVerified: Bool?
    package var name: String?
    /// The whole claims set as received, for `profile.raw` and provider-specific members.
    package var raw: JSONValue

    /// Throws `userInfoSubjectMismatch` unless the userinfo response's `sub` equals this token's (OIDC Core
    /// §5.3.2: otherwise the userinfo response must not be used).
    package func checkUserInfoSubject(_ userInfo: JSONValue) throws(OIDCError) {
        guard let subject = userInfo["sub"]?.stringValue, subject == sub else {
            throw .userInfoSubjectMismatch
        }
    }
}
