/// What the app asked the sign-in to do (Firebase's `authType` names).
public enum AuthType: String, Sendable, Hashable, Codable, CaseIterable {
    /// A plain sign-in.
    case signInViaRedirect
    /// Link the new credential to the signed-in user named by `idToken`.
    case linkViaRedirect
    /// Re-authenticate the signed-in user named by `idToken`.
    case reauthViaRedirect

    /// Whether redemption needs the app's current `idToken`.
    public var requiresIDToken: Bool { self != .signInViaRedirect }
}
