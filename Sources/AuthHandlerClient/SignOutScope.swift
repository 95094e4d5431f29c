/// Which sessions `signOut(scope:)` ends (HTTP-API.md §3.10 `POST /__/auth/sign-out`).
public enum SignOutScope: String, Sendable, Hashable, CaseIterable {
    /// This client's session only.
    case local
    /// Every other session of the user; this one stays signed in. Needs a recent sign-in.
    case others
    /// Every session, and every ID token issued so far stops being accepted. Needs a recent sign-in.
    case global
}
