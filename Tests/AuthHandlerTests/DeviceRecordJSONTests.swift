import Foundation
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP

/// The device sign-in's records (HTTP-API.md §3.9) as sealed JSON: records the previous release sealed with
/// `JSONEncoder` (`.withoutEscapingSlashes`, members in its order) still open, and what is written now reads back.
struct DeviceRecordJSONTests {
    static let created = Date(timeIntervalSinceReferenceDate: 786_543_210.123_456_7)

    @Test func aGrantSealedByThePreviousReleaseStillOpens() throws {
        let grant = try #require(
            SignInFlow.decode(
                DeviceGrant.self,
                from: Array(#"{"expiresAt":786543210.1234567,"interval":5,"idToken":"eyJ.id.tok"}"#.utf8)))
        #expect(grant.expiresAt == Self.created)
        #expect(grant.interval == 5)
        #expect(grant.idToken == "eyJ.id.tok")
        let without = try #require(
            SignInFlow.decode(DeviceGrant.self, from: Array(#"{"expiresAt":786543810,"interval":5}"#.utf8)))
        #expect(without.expiresAt == Date(timeIntervalSinceReferenceDate: 786_543_810))
        #expect(without.idToken == nil)
        #expect(
            String(decoding: without.serialized(sortingKeys: true), as: UTF8.self)
                == #"{"expiresAt":786543810,"interval":5}"#)
        let written = try SignInFlow.encode(grant)
        let again = try #require(SignInFlow.decode(DeviceGrant.self, from: written))
        #expect(again.expiresAt == grant.expiresAt && again.interval == 5 && again.idToken == "eyJ.id.tok")
        #expect(SignInFlow.decode(DeviceGrant.self, from: Array(#"{"expiresAt":1,"interval":"5"}"#.utf8)) == nil)
    }

    @Test func aRequestSealedByThePreviousReleaseStillOpens() throws {
        let sealed =
            #"{"resultCode":"rc-1","resultChallenge":"chal","createdAt":786543210.1234567,"#
            + #""authType":"signInViaRedirect","client":"192.0.2.7","#
            + #""customParameters":"{\"allow_signup\":\"false\"}","scopes":["read:user","user:email"],"#
            + #""providerID":"github.com","expiresAt":786543810.1234567}"#
        let request = try #require(SignInFlow.decode(DeviceRequest.self, from: Array(sealed.utf8)))
        #expect(request.providerID == "github.com")
        #expect(request.scopes == ["read:user", "user:email"])
        #expect(request.customParameters == #"{"allow_signup":"false"}"#)
        #expect(request.authType == .signInViaRedirect)
        #expect(request.resultChallenge == "chal")
        #expect(request.client == "192.0.2.7")
        #expect(request.createdAt == Self.created)
        #expect(request.expiresAt == Self.created.addingTimeInterval(600))
        #expect(request.resultCode == "rc-1")
        #expect(
            String(decoding: request.serialized(sortingKeys: true), as: UTF8.self)
                == #"{"authType":"signInViaRedirect","client":"192.0.2.7","createdAt":786543210.1234567,"#
                + #""customParameters":"{\"allow_signup\":\"false\"}","expiresAt":786543810.1234567,"#
                + #""providerID":"github.com","resultChallenge":"chal","resultCode":"rc-1","#
                + #""scopes":["read:user","user:email"]}"#)
        var changed = try #require(JSONValue.parse(Array(sealed.utf8))?.objectValue)
        changed["scopes"] = .array([.integer(1)])
        #expect(DeviceRequest(json: .object(changed)) == nil)
    }

    @Test func aDecisionSealedByThePreviousReleaseStillOpens() throws {
        let sealed = #"{"message":"the sign-in was declined on the confirmation page","outcome":"declined"}"#
        let decision = try #require(SignInFlow.decode(DeviceDecision.self, from: Array(sealed.utf8)))
        #expect(decision.outcome == .declined)
        #expect(decision.message == "the sign-in was declined on the confirmation page")
        #expect(String(decoding: decision.serialized(sortingKeys: true), as: UTF8.self) == sealed)
        #expect(SignInFlow.decode(DeviceDecision.self, from: Array(#"{"message":"","outcome":"x"}"#.utf8)) == nil)
    }
}
