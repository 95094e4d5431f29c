import Foundation

/// A started sign-in: the URL to open in a browser, and what `AuthHandlerClient.complete` needs when the browser
/// comes back.
///
/// It is `Codable` so that an app can keep it across a relaunch (the system may end an app while the user is at the
/// provider). It holds the redemption `verifier` and, for link and reauthentication, the user's ID token: keep the
/// encoded form where the app keeps credentials (the Keychain), and drop it once `complete` has returned. Printing it
/// shows neither.
public struct SignInRequest: Sendable, Hashable, Codable, CustomStringConvertible, CustomReflectable {
    /// The daemon's start URL (HTTP-API.md §3.1): open it in the browser (`ASWebAuthenticationSession`).
    public let url: URL
    /// Chosen at random by `begin`; the daemon returns it on the redirect and in the result.
    public let eventId: String
    public let providerId: String
    /// Where the daemon sends the browser back (an entry of `allowedRedirectURLs`).
    public let redirectURL: URL
    public let authType: AuthHandlerClient.AuthType
    /// The secret whose SHA-256 is the start's `resultChallenge`; sent only to `POST /__/auth/result`.
    let verifier: String
    /// The signed-in user's ID token, for `link` and `reauthenticate`; sent only to `POST /__/auth/result`.
    let idToken: String?

    public var description: String {
        "SignInRequest(providerId: \(providerId), authType: \(authType.rawValue), eventId: \(eventId), "
            + "redirectURL: \(redirectURL.absoluteString), verifier and idToken redacted)"
    }

    public var customMirror: Mirror {
        Mirror(self, children: ["description": description])
    }
}
