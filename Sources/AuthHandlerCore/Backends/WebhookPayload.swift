import AuthHandlerHTTP

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
struct WebhookPayload: JSONWritable {
    var request: BackendSignInRequest
    var deliveryId: String

    var json: JSONValue {
        var members: [String: JSONValue] = [
            "resultId": .string(request.resultId ?? deliveryId), "deliveryId": .string(deliveryId),
            "providerId": .string(request.providerId), "authType": .string(request.authType.rawValue),
            "eventId": .nullable(request.eventId), "credential": request.credential.json,
            "profile": request.profile.json,
        ]
        if request.authType.requiresIDToken, let idToken = request.idToken { members["idToken"] = .string(idToken) }
        return .object(members)
    }
}
