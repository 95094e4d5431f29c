/// The JSON body POSTed to a webhook backend: what the IdP said and what the app asked for.
///
/// `{"providerId", "authType", "eventId", "credential", "profile"}`, `eventId` null when the app gave none, plus
/// `idToken` (the app's current backend ID token) for `linkViaRedirect` and `reauthViaRedirect`.
struct WebhookPayload: Encodable {
    var providerId: String
    var authType: AuthType
    var eventId: String?
    var credential: IdPCredential
    var profile: ProviderProfile
    var idToken: String?

    init(_ request: BackendSignInRequest) {
        providerId = request.providerId
        authType = request.authType
        eventId = request.eventId
        credential = request.credential
        profile = request.profile
        idToken = request.authType.requiresIDToken ? request.idToken : nil
    }

    private enum CodingKeys: String, CodingKey {
        case providerId, authType, eventId, credential, profile, idToken
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeMembers([
            .providerId: providerId, .authType: authType, .eventId: eventId, .credential: credential,
            .profile: profile,
        ])
        try container.encodeIfPresent(idToken, forKey: .idToken)
    }
}
