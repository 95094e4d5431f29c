import Foundation

/// The claims of an accepted ID token (OIDC Core §2, §5.1).
public struct IDTokenClaims: Sendable, Equatable {
    public var iss: String
    public var sub: String
    public var aud: [String]
    public var exp: Date
    public var iat: Date
    public var nonce: String?
    public var azp: String?
    public var authTime: Date?
    public var email: String?
    /// `email_verified`, also when a provider sends it as the string `"true"` or `"false"` (Apple does).
    public var emailVerified: Bool?
    public var name: String?
    /// The whole claims set as received, for `profile.raw` and provider-specific members.
    public var raw: JSONValue

    public init(
        iss: String, sub: String, aud: [String], exp: Date, iat: Date, nonce: String? = nil, azp: String? = nil,
        authTime: Date? = nil, email: String? = nil, emailVerified: Bool? = nil, name: String? = nil,
        raw: JSONValue
    ) {
        self.iss = iss
        self.sub = sub
        self.aud = aud
        self.exp = exp
        self.iat = iat
        self.nonce = nonce
        self.azp = azp
        self.authTime = authTime
        self.email = email
        self.emailVerified = emailVerified
        self.name = name
        self.raw = raw
    }

    /// Throws `userInfoSubjectMismatch` unless the userinfo response's `sub` equals this token's (OIDC Core
    /// §5.3.2: otherwise the userinfo response must not be used).
    public func checkUserInfoSubject(_ userInfo: JSONValue) throws(OIDCError) {
        guard let subject = userInfo["sub"]?.stringValue, subject == sub else {
            throw .userInfoSubjectMismatch
        }
    }
}
