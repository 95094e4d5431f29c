extension AuthHandlerClient {
    /// What a sign-in is for (HTTP-API.md §3.1 `authType`); the raw value is the daemon's.
    public enum AuthType: String, Sendable, Hashable, Codable, CaseIterable {
        /// Sign the user in (`signInViaRedirect`).
        case signIn = "signInViaRedirect"
        /// Link the provider to the signed-in user (`linkViaRedirect`); needs that user's ID token.
        case link = "linkViaRedirect"
        /// Re-authenticate the signed-in user (`reauthViaRedirect`); needs that user's ID token.
        case reauthenticate = "reauthViaRedirect"

        /// True when the redemption must carry the user's `idToken` (HTTP-API.md §3.3).
        public var requiresIDToken: Bool { self != .signIn }
    }
}
