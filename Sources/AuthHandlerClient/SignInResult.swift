/// A redeemed sign-in: the JSON of `POST /__/auth/result` (HTTP-API.md §3.3).
public struct SignInResult: Sendable, Hashable, Codable {
    public var providerId: String
    public var authType: AuthHandlerClient.AuthType
    /// The `eventId` the sign-in was started with.
    public var eventId: String?
    /// What the identity provider issued.
    public var credential: Credential
    /// Who signed in, as the provider describes them.
    public var profile: Profile
    /// The sign-in backend's answer (Identity Toolkit's members, or the webhook's JSON); nil with backend `none`.
    public var signIn: AuthHandlerClient.JSON?

    public init(
        providerId: String, authType: AuthHandlerClient.AuthType, eventId: String?, credential: Credential,
        profile: Profile, signIn: AuthHandlerClient.JSON?
    ) {
        self.providerId = providerId
        self.authType = authType
        self.eventId = eventId
        self.credential = credential
        self.profile = profile
        self.signIn = signIn
    }

    /// The credential an identity provider issued (HTTP-API.md §3.3 `credential`).
    ///
    /// OAuth 1.0a fills `accessToken` and `secret`; OAuth 2 `accessToken` and the optional members; OpenID Connect
    /// also `idToken` and `nonce`. Printing it names the members that are present, never their values.
    public struct Credential: Sendable, Hashable, Codable, CustomStringConvertible, CustomReflectable {
        public var accessToken: String?
        /// The OAuth 1.0a token secret.
        public var secret: String?
        public var idToken: String?
        public var refreshToken: String?
        /// Seconds until `accessToken` expires, as the provider said.
        public var expiresIn: Int?
        /// The scopes granted, space-separated as the provider said.
        public var scope: String?
        /// The raw OpenID Connect nonce of the sign-in, whose lowercase hex SHA-256 is the ID token's `nonce` claim;
        /// nil for OAuth 1.0a and OAuth 2, and from a daemon that predates it. Firebase's
        /// `OAuthProvider.credential(providerID:idToken:rawNonce:)` needs it (docs/CLIENTS.md).
        public var nonce: String?

        public init(
            accessToken: String? = nil, secret: String? = nil, idToken: String? = nil, refreshToken: String? = nil,
            expiresIn: Int? = nil, scope: String? = nil, nonce: String? = nil
        ) {
            self.accessToken = accessToken
            self.secret = secret
            self.idToken = idToken
            self.refreshToken = refreshToken
            self.expiresIn = expiresIn
            self.scope = scope
            self.nonce = nonce
        }

        public var description: String {
            let present = [
                ("accessToken", accessToken), ("secret", secret), ("idToken", idToken),
                ("refreshToken", refreshToken), ("nonce", nonce),
            ].compactMap { $0.1 == nil ? nil : $0.0 }
            return "Credential(\(present.joined(separator: ", ")) redacted"
                + (expiresIn.map { ", expiresIn: \($0)" } ?? "") + (scope.map { ", scope: \($0)" } ?? "") + ")"
        }

        public var customMirror: Mirror {
            Mirror(self, children: ["description": description])
        }
    }

    /// Who signed in (HTTP-API.md §3.3 `profile`).
    public struct Profile: Sendable, Hashable, Codable {
        /// The provider's stable id for the user.
        public var id: String
        public var displayName: String?
        /// Present only when the provider says the address is verified.
        public var email: String?
        /// The user name, for providers that have one (Twitter's `screen_name`).
        public var screenName: String?
        /// The provider's own profile document.
        public var raw: AuthHandlerClient.JSON

        public init(
            id: String, displayName: String? = nil, email: String? = nil, screenName: String? = nil,
            raw: AuthHandlerClient.JSON = .object([:])
        ) {
            self.id = id
            self.displayName = displayName
            self.email = email
            self.screenName = screenName
            self.raw = raw
        }
    }
}
