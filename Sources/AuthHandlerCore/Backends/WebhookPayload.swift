/// The JSON body POSTed to a webhook backend: what the IdP said and what the app asked for, and which delivery of which
/// result this is.
///
/// `{"resultId", "deliveryId", "providerId", "authType", "eventId", "credential", "profile"}`, `eventId` null when the
/// app gave none, plus `idToken` (the app's current backend ID token) for `linkViaRedirect` and `reauthViaRedirect`.
/// The ids are in the body, so the signature covers them (HTTP-API.md §2.8): a receiver that keeps the `resultId`s it
/// processed recognises a retry or a replay of one result, and `deliveryId` tells the attempts apart.
///
/// `resultId` is the same for every delivery of one result (``BackendSignInRequest/resultId``); a request without one
/// (one not built by the flow's redemption) counts as its own result. `deliveryId` is drawn afresh for every delivery.
struct WebhookPayload: Encodable {
    var request: BackendSignInRequest
    var deliveryId: String

    private enum CodingKeys: String, CodingKey {
        case resultId, deliveryId, providerId, authType, eventId, credential, profile, idToken
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeMembers([
            .resultId: request.resultId ?? deliveryId, .deliveryId: deliveryId, .providerId: request.providerId,
            .authType: request.authType, .eventId: request.eventId, .credential: request.credential,
            .profile: request.profile,
        ])
        try container.encodeIfPresent(request.authType.requiresIDToken ? request.idToken : nil, forKey: .idToken)
    }
}
