import Foundation
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP

/// The cookie's plaintext and the redemption answer written through `JSONValue` instead of `JSONEncoder`: the same JSON
/// as before, so cookies sealed by older releases still open and the answer keeps HTTP-API.md §3.3's members.
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
    func theWrittenPlaintextIsTheEncodersJSONAndOpens(_ session: PendingSession) throws {
        let written = session.plaintext
        #expect(PendingSession.decoding(written) == session)
        let encoded = try SignInFlow.encode(session)
        #expect(JSONValue.parse(written) == JSONValue.parse(encoded))
        #expect(written.count == encoded.count)
    }

    @Test func theRedemptionAnswerIsTheEncodersJSONByteForByte() throws {
        let answer = RedemptionAnswer(
            providerId: "oidc.test", authType: .reauthViaRedirect, eventId: nil,
            credential: IdPCredential(
                accessToken: "access/1", secret: nil, idToken: "id.token.sig", refreshToken: nil, expiresIn: 3600,
                scope: "openid email", nonce: "nonce-1"),
            profile: ProviderProfile(
                id: "248289761001", screenName: nil, displayName: "Ålice \"A\"", email: "a@example.com",
                raw: .object([
                    "sub": .string("248289761001"), "email_verified": .bool(true), "groups": .array([.string("a")]),
                    "updated_at": .integer(1_700_000_000), "picture": .null,
                ])),
            signIn: nil)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let before = Array(try encoder.encode(answer))
        let written = answer.json.serialized(sortingKeys: true)
        #expect(String(decoding: written, as: UTF8.self) == String(decoding: before, as: UTF8.self))
        let members = try #require(JSONValue.parse(written)?.objectValue)
        #expect(members["eventId"] == .null)
        #expect(members["signIn"] == .null)
        #expect(members["credential"]?.objectValue?["secret"] == .null)
    }
}
