import AuthHandlerHTTP

/// Backend `none`: the result carries the IdP credential and profile only, and `signIn` is null.
package struct NoSignInBackend: SignInBackend {
    package init() {}

    package func signIn(_ request: BackendSignInRequest) async throws(BackendError) -> JSONValue? {
        nil
    }
}
