import Foundation
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP

/// The cookie's plaintext and the redemption answer written by `JSONValue` (``JSONWritable``): cookies sealed by older
/// releases with `JSONEncoder` still open, and the answer keeps HTTP-API.md §3.3's members and bytes.
struct FlowHotPathJSONTests {
    static let created = Date(timeIntervalSinceReferenceDate: 786_312_345.678_9)

    static let oauth2 = PendingSession(
        providerID: "oidc.test", state: "state-1", redirectURL: "https://app.example.com/signed-in?a=1&b=%2F",
        authType: .linkViaRedirect, eventID: "event \"1\"\n", resultChallenge: "challenge", scopes: ["email", "x/y"],
        codeVerifier: "verifier", nonce: "nonce", requestToken: nil, requestTokenSecret: nil, createdAt: created,
        expiresAt: created.addingTimeInterval(600))

    static let oauth1 = PendingSession(
        providerID: "twitter.com", state: nil, redirectURL: "https://app.example.com/", authType: .signInViaRedirect,
        eventID: nil, resultChallenge: nil, scopes: [], codeVerifier: nil, nonce: nil, requestToken: "request-1",
        requestTokenSecret: "secret-1", createdAt: Date(timeIntervalSinceReferenceDate: 786_312_000),
        expiresAt: Date(timeIntervalSinceReferenceDate: 786_312_600))

    /// A device sign-in's session (HTTP-API.md §3.9): between them, these three set every member of a session, so a
    /// member that `plaintext` forgets fails the round trip below.
    static let device: PendingSession = {
        var session = oauth2
        session.redirectURL = ""
        session.eventID = nil
        session.deviceResultCode = "device-result-code"
        session.resultDelivery = .fragment
        return session
    }()

    /// A plaintext exactly as `JSONEncoder` (`.withoutEscapingSlashes`) sealed it before: cookies of this form are
    /// still in browsers during an upgrade.
    static let sealedBefore =
        #"{"p":"oidc.test","s":"state-1","r":"https://app.example.com/signed-in","a":"signInViaRedirect","#
        + #""c":"Qx2vWQ4z0jRyZ9ZkP8pTj1Hk3nE7mC5aB6dF0gH1iJ2","sc":["email"],"v":"pkce-verifier","n":"raw-nonce","#
        + #""ct":786312345.6789,"x":786312945.6789}"#

    @Test func aCookiePlaintextSealedByTheEncoderStillOpens() throws {
        let session = try #require(PendingSession.decoding(Array(Self.sealedBefore.utf8)))
        #expect(session.providerID == "oidc.test")
        #expect(session.state == "state-1")
        #expect(session.redirectURL == "https://app.example.com/signed-in")
        #expect(session.scopes == ["email"])
        #expect(session.codeVerifier == "pkce-verifier")
        #expect(session.nonce == "raw-nonce")
        #expect(session.eventID == nil)
        #expect(session.createdAt == Date(timeIntervalSinceReferenceDate: 786_312_345.678_9))
        // Written again, it is the same JSON.
        #expect(JSONValue.parse(session.plaintext) == JSONValue.parse(Array(Self.sealedBefore.utf8)))
    }

    /// What `JSONDecoder` refused stays refused: a required member missing or any member of the wrong type; what it
    /// accepted stays accepted: `null` for an optional, members it does not know.
    @Test func aPlaintextOfTheWrongShapeDoesNotOpen() throws {
        let base = try #require(JSONValue.parse(Array(Self.sealedBefore.utf8)))
        guard case .object(let members) = base else { throw CancellationError() }
        func decoded(_ change: (inout [String: JSONValue]) -> Void) -> PendingSession? {
            var changed = members
            change(&changed)
            return PendingSession.decoding(JSONValue.object(changed).serialized)
        }
        #expect(decoded { _ in } != nil)
        for required in ["p", "r", "a", "sc", "ct", "x"] {
            #expect(decoded { $0[required] = nil } == nil, "without \(required)")
        }
        #expect(decoded { $0["a"] = .string("signInWithPopup") } == nil)
        #expect(decoded { $0["a"] = .integer(1) } == nil)
        #expect(decoded { $0["s"] = .integer(1) } == nil)
        #expect(decoded { $0["sc"] = .array([.string("email"), .integer(1)]) } == nil)
        #expect(decoded { $0["ct"] = .string("786312345") } == nil)
        #expect(decoded { $0["s"] = .null }?.state == nil)
        #expect(decoded { $0["s"] = .null } != nil)
        #expect(decoded { $0["zz"] = .string("later member") } != nil)
        // resultDelivery (HTTP-API.md §3.1): absent in older cookies, which return in the query; unknown: refused.
        #expect(decoded { _ in }?.resultDelivery == nil)
        #expect(decoded { $0["rd"] = .string("fragment") }?.resultDelivery == .fragment)
        #expect(decoded { $0["rd"] = .string("hash") } == nil)
        #expect(decoded { $0["rd"] = .integer(1) } == nil)
        #expect(
            decoded { $0["x"] = .integer(786_312_945) }?.expiresAt == Date(timeIntervalSinceReferenceDate: 786_312_945))
        #expect(PendingSession.decoding(Array("[]".utf8)) == nil)
        #expect(PendingSession.decoding(Array("{".utf8)) == nil)
    }

    @Test(arguments: [oauth2, oauth1, device])
    func theWrittenPlaintextOpens(_ session: PendingSession) throws {
        #expect(PendingSession.decoding(session.plaintext) == session)
        #expect(SignInFlow.decode(PendingSession.self, from: try SignInFlow.encode(session)) == session)
    }

    @Test func theWrittenPlaintextIsPinned() {
        #expect(
            String(decoding: Self.oauth1.serialized(sortingKeys: true), as: UTF8.self)
                == #"{"a":"signInViaRedirect","ct":786312000,"p":"twitter.com","r":"https://app.example.com/","sc":[],"#
                + #""t":"request-1","ts":"secret-1","x":786312600}"#)
    }

    /// HTTP-API.md §3.3's members, byte for byte what `JSONEncoder` (`.sortedKeys`, `.withoutEscapingSlashes`) wrote
    /// for this answer before the answer was written by `JSONValue`: apps that compare bytes see no change.
    @Test func theRedemptionAnswerIsPinned() throws {
        let stored = FlowStoredResultTests.before
        let answer = RedemptionAnswer(
            providerId: stored.providerID, authType: stored.authType, eventId: nil, credential: stored.credential,
            profile: stored.profile, signIn: nil)
        let written = String(decoding: answer.serialized(sortingKeys: true), as: UTF8.self)
        #expect(
            written
                == #"{"authType":"signInViaRedirect","credential":{"accessToken":"ya29/a","expiresIn":3599,"#
                + #""idToken":"eyJ.x.y","nonce":"n-0","refreshToken":null,"scope":"openid email","secret":null},"#
                + #""eventId":null,"profile":{"displayName":"Ünïcode","email":"a@example.com","id":"1234","#
                + #""raw":{"email_verified":true,"iat":1700000000,"sub":"1234"},"screenName":null},"#
                + #""providerId":"google.com","signIn":null}"#)
        var signedIn = answer
        signedIn.eventId = "e1"
        signedIn.signIn = .object(["isNewUser": .bool(false), "localId": .string("u/1")])
        let members = try #require(JSONValue.parse(signedIn.serialized(sortingKeys: true))?.objectValue)
        #expect(members["eventId"] == .string("e1"))
        #expect(members["signIn"]?["localId"] == .string("u/1"))
    }
}
