/// The exit status of `auth-handler` (HTTP-API.md §1.2), in the style of BSD `sysexits.h` for 64 and 78.
enum AuthHandlerExitCode: Int32, Sendable, Hashable, CaseIterable {
    /// Signed in, or the command succeeded.
    case success = 0
    /// The user cancelled or denied the sign-in; `accounts delete` without `--yes`.
    case cancelled = 1
    /// The provider or the sign-in backend failed; for `accounts`, the accounts database.
    case providerError = 2
    /// The sign-in timed out.
    case timedOut = 3
    /// `token` or `logout` found no session of the server's accounts, or the server ended it: sign in again.
    case notSignedIn = 4
    /// The command line was wrong (`EX_USAGE`); for `accounts`, also an unknown user or a refused password or claims.
    case usage = 64
    /// The configuration was wrong (`EX_CONFIG`).
    case config = 78
}
