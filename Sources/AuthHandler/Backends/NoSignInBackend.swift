/// Backend `none`: the result carries the IdP credential and profile only, and `signIn` is null.
public struct NoSignInBackend: SignInBackend {
    public init() {}

    public func signIn(_ request: BackendSignInRequest) async throws(BackendError) -> JSONValue? {
        nil
    }
}
