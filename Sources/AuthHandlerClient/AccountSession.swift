/// What a signed-in client keeps across launches (HTTP-API.md §3.10): the refresh token and the latest ID token. A
/// ``SessionStore`` holds it; printing it shows neither token.
public struct AccountSession: Sendable, Hashable, Codable, CustomStringConvertible, CustomReflectable {
    /// The refresh token `POST /__/auth/token` takes; each use answers its successor.
    public var refreshToken: String
    /// The latest ID token (a JWT); its claims are ``AccountUser``.
    public var idToken: String

    public init(refreshToken: String, idToken: String) {
        self.refreshToken = refreshToken
        self.idToken = idToken
    }

    public var description: String { "AccountSession(refreshToken, idToken redacted)" }

    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}
