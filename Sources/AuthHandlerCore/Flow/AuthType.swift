/// What the app asked the sign-in to do (Firebase's `authType` names).

package enum AuthType: String, Sendable, Hashable, Codable, CaseIterable {
    /// A plain sign-in.
    case signInViaRedirect
    /// Link the new credential to the signed-in user named by `idToken`.
    case linkViaRedirect
    /// Re-authenticate the signed-in user named by `idToken`.
    case reauthViaRedirect

    /// Whether redemption needs the app's current `idToken`.
    package var requiresIDToken: Bool { self != .signInViaRedirect }
}
