import AuthHandlerHTTP

/// The sign-in backend a redeemed IdP credential is handed to (HTTP-API.md §2.8 `backend`, §3.3 `signIn`).
///
/// Implementations: `NoSignInBackend` (`none`), `IdentityToolkitBackend` (`identitytoolkit`) and
/// `WebhookBackend` (`webhook`); `BackendConfig.makeBackend(secrets:fetcher:timeout:)` builds the one the config names.
package protocol SignInBackend: Sendable {
    /// Signs the user in (or links, or re-authenticates); the answer is the result's `signIn`, nil for `none`.
    func signIn(_ request: BackendSignInRequest) async throws(BackendError) -> JSONValue?
}
