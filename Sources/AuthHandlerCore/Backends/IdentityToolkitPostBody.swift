import AuthHandlerHTTP

/// The `postBody` of `accounts:signInWithIdp`: the IdP credential as a form, as Identity Toolkit documents it
/// for manually supplied credentials (https://cloud.google.com/identity-platform/docs/reference/rest/v1/accounts/signInWithIdp).
enum IdentityToolkitPostBody {
    /// `providerId=...` then OAuth 1.0a `access_token` + `oauth_token_secret`; OIDC `id_token` (+ `access_token`,
    /// the raw `nonce`), or `access_token` alone when there is no ID token; OAuth 2 `access_token`.
    static func form(for request: BackendSignInRequest) throws(BackendError) -> String {
        var fields = [URLFormField(name: "providerId", value: request.providerId)]
        let credential = request.credential
        switch request.protocolKind {
        case .oauth1:
            guard let token = nonEmpty(credential.accessToken), let secret = nonEmpty(credential.secret) else {
                throw .rejected(
                    reason: "the \(request.providerId) credential lacks the OAuth 1.0a access token or its secret")
            }
            fields.append(URLFormField(name: "access_token", value: token))
            fields.append(URLFormField(name: "oauth_token_secret", value: secret))
        case .oidc:
            let idToken = nonEmpty(credential.idToken)
            let accessToken = nonEmpty(credential.accessToken)
            guard idToken != nil || accessToken != nil else {
                throw .rejected(
                    reason: "the \(request.providerId) credential has neither an ID token nor an access token")
            }
            if let idToken { fields.append(URLFormField(name: "id_token", value: idToken)) }
            if let accessToken { fields.append(URLFormField(name: "access_token", value: accessToken)) }
            // The raw nonce: Identity Toolkit checks that its SHA-256 is the ID token's `nonce` (OIDCNonce).
            if idToken != nil, let nonce = nonEmpty(credential.nonce) {
                fields.append(URLFormField(name: "nonce", value: nonce))
            }
        case .oauth2:
            guard let token = nonEmpty(credential.accessToken) else {
                throw .rejected(reason: "the \(request.providerId) credential has no access token")
            }
            fields.append(URLFormField(name: "access_token", value: token))
        }
        return FormURLEncoding.encode(fields)
    }

    private static func nonEmpty(_ value: String?) -> String? {
        guard let value, !value.isEmpty else { return nil }
        return value
    }
}
