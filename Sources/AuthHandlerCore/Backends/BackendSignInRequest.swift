/// What a backend needs to sign a user in: the IdP's credential and profile and what the app asked for.
package struct BackendSignInRequest: Sendable, Hashable {
    /// The provider id, e.g. `twitter.com` or `oidc.corp`.
    package var providerId: String
    /// The protocol the provider speaks; it decides what Identity Toolkit's `postBody` carries.
    package var protocolKind: ProviderConfig.ProtocolKind
    package var credential: IdPCredential
    package var profile: ProviderProfile
    package var authType: AuthType = .signInViaRedirect
    /// The handler URL the IdP redirected to (`publicURL + "/__/auth/handler"`), Identity Toolkit's `requestUri`.
    package var requestUri: String
    /// The app's current ID token from the backend; required for `linkViaRedirect` and `reauthViaRedirect`.
    package var idToken: String?
    /// The app's opaque `eventId`, echoed to the webhook.
    package var eventId: String?
    /// The result being redeemed, the same for every redemption attempt of one result code and never the code itself:
    /// the webhook's `resultId`, by which a receiver recognises a delivery it already processed (HTTP-API.md §2.8).
    package var resultId: String?
    /// The redemption's `verifier` (HTTP-API.md §3.3): the accounts backend binds a pending credential to it, so that
    /// only the browser that ran this sign-in can link it. Other backends do not send it anywhere.
    package var verifier: String?

    /// Every token-like value of this request, for scrubbing them out of error messages.
    var sensitiveValues: [String?] {
        [
            credential.accessToken, credential.secret, credential.idToken, credential.refreshToken, credential.nonce,
            idToken, verifier,
        ]
    }
}
