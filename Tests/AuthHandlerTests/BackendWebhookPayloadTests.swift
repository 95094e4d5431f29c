import Foundation
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP

/// The webhook body (HTTP-API.md §2.8): the result's `credential` and `profile` (§3.3), `eventId` `null` when absent,
/// `idToken` only for link and reauth; byte for byte what `JSONEncoder` (`.sortedKeys`, `.withoutEscapingSlashes`)
/// wrote before `JSONValue` wrote it, so a receiver's signature check sees the same body.
struct BackendWebhookPayloadTests {
    static let request = BackendSignInRequest(
        providerId: "google.com", protocolKind: .oidc, credential: FlowStoredResultTests.before.credential,
        profile: FlowStoredResultTests.before.profile, authType: .linkViaRedirect,
        requestUri: "https://auth.example/__/auth/handler", idToken: "app.id.token", eventId: nil, resultId: "res-1")

    @Test func theBodyIsPinned() {
        let written = WebhookPayload(request: Self.request, deliveryId: "del-1").serialized(sortingKeys: true)
        #expect(
            String(decoding: written, as: UTF8.self)
                == #"{"authType":"linkViaRedirect","credential":{"accessToken":"ya29/a","expiresIn":3599,"#
                + #""idToken":"eyJ.x.y","nonce":"n-0","refreshToken":null,"scope":"openid email","secret":null},"#
                + #""deliveryId":"del-1","eventId":null,"idToken":"app.id.token","profile":{"displayName":"Ünïcode","#
                + #""email":"a@example.com","id":"1234","raw":{"email_verified":true,"iat":1700000000,"sub":"1234"},"#
                + #""screenName":null},"providerId":"google.com","resultId":"res-1"}"#)
    }

    @Test func aSignInCarriesNoIDTokenAndAResultIdOfItsOwn() throws {
        var request = Self.request
        request.authType = .signInViaRedirect
        request.resultId = nil
        request.eventId = "e1"
        let members = try #require(
            JSONValue.parse(WebhookPayload(request: request, deliveryId: "del-2").serialized)?.objectValue)
        #expect(members["idToken"] == nil)
        #expect(members["resultId"] == .string("del-2"))
        #expect(members["eventId"] == .string("e1"))
    }
}
