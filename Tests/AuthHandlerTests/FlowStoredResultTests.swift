import Foundation
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP

/// A stored result is written and read through `JSONValue` (`StoredResult+JSON`); results the previous release stored
/// with `JSONEncoder` must still open.
struct FlowStoredResultTests {
    static let claims: JSONValue = .object([
        "sub": .string("1234"), "email_verified": .bool(true), "exp": .integer(1_700_000_000), "ratio": .number(0.25),
        "aud": .array([.string("a"), .string("b/c")]),
        "address": .object(["street": .string("Quai \"9\"\\\n\t\u{1}é")]),
        "none": .null,
    ])

    static let results = [
        StoredResult(
            providerID: "google.com", authType: .signInViaRedirect, eventID: "event-1", resultChallenge: "challenge",
            credential: IdPCredential(
                accessToken: "at", idToken: "eyJ.x.y", expiresIn: 3599, scope: "openid email", nonce: "n-0"),
            profile: ProviderProfile(id: "1234", displayName: "Ünïcode 😀", email: "a@example.com", raw: claims),
            requestURI: "https://auth.example/__/auth/handler",
            createdAt: Date(timeIntervalSinceReferenceDate: 786_543_210.123_456_7)),
        StoredResult(
            providerID: "twitter.com", authType: .linkViaRedirect, eventID: nil, resultChallenge: nil,
            credential: IdPCredential(accessToken: "t", secret: "s"), profile: ProviderProfile(id: "42", raw: .null),
            requestURI: "http://127.0.0.1/__/auth/handler",
            createdAt: Date(timeIntervalSinceReferenceDate: 5)),
    ]

    /// A result as the previous release sealed it: `JSONEncoder` (`.withoutEscapingSlashes`) over the synthesized
    /// `Codable` conformance, members in its order. Results stored during an upgrade must still open.
    static let storedBefore =
        #"{"authType":"signInViaRedirect","requestURI":"https://auth.example/__/auth/handler","#
        + #""createdAt":786543210.1234567,"eventID":"event-1","providerID":"google.com","profile":{"screenName":null,"#
        + #""raw":{"iat":1700000000,"sub":"1234","email_verified":true},"id":"1234","displayName":"Ünïcode","#
        + #""email":"a@example.com"},"credential":{"nonce":"n-0","refreshToken":null,"scope":"openid email","#
        + #""accessToken":"ya29/a","idToken":"eyJ.x.y","expiresIn":3599,"secret":null}}"#

    static let before = StoredResult(
        providerID: "google.com", authType: .signInViaRedirect, eventID: "event-1", resultChallenge: nil,
        credential: IdPCredential(
            accessToken: "ya29/a", idToken: "eyJ.x.y", expiresIn: 3599, scope: "openid email", nonce: "n-0"),
        profile: ProviderProfile(
            id: "1234", displayName: "Ünïcode", email: "a@example.com",
            raw: .object(["sub": .string("1234"), "email_verified": .bool(true), "iat": .integer(1_700_000_000)])),
        requestURI: "https://auth.example/__/auth/handler",
        createdAt: Date(timeIntervalSinceReferenceDate: 786_543_210.123_456_7))

    @Test func aResultStoredByThePreviousReleaseStillOpens() throws {
        #expect(StoredResult(parsing: Array(Self.storedBefore.utf8)) == Self.before)
        // A default `JSONEncoder` escaped every slash; RFC 8259 §7 reads `\/` as `/`.
        let escaped = Self.storedBefore.replacingOccurrences(of: "/", with: #"\/"#)
        #expect(StoredResult(parsing: Array(escaped.utf8)) == Self.before)
    }

    @Test func theWrittenJSONIsPinned() {
        let written = String(decoding: Self.before.serialized(sortingKeys: true), as: UTF8.self)
        #expect(
            written
                == #"{"authType":"signInViaRedirect","createdAt":786543210.1234567,"credential":{"accessToken":"ya29/a","#
                + #""expiresIn":3599,"idToken":"eyJ.x.y","nonce":"n-0","refreshToken":null,"scope":"openid email","#
                + #""secret":null},"eventID":"event-1","profile":{"displayName":"Ünïcode","email":"a@example.com","#
                + #""id":"1234","raw":{"email_verified":true,"iat":1700000000,"sub":"1234"},"screenName":null},"#
                + #""providerID":"google.com","requestURI":"https://auth.example/__/auth/handler"}"#)
    }

    @Test(arguments: results)
    func readsBackWhatItWrites(_ result: StoredResult) throws {
        #expect(StoredResult(parsing: result.serialized) == result)
        #expect(StoredResult(parsing: result.serialized(sortingKeys: true)) == result)
    }

    @Test func refusesAMemberOfTheWrongType() throws {
        guard case .object(var members) = Self.results[0].json else {
            Issue.record("a result is a JSON object")
            return
        }
        #expect(StoredResult(json: .object(members)) != nil)
        members["eventID"] = .integer(7)
        #expect(StoredResult(json: .object(members)) == nil)
        members["eventID"] = nil
        members["authType"] = .string("unknown")
        #expect(StoredResult(json: .object(members)) == nil)
        #expect(StoredResult(json: .array([])) == nil)
    }

    @Test func serializedJSONReadsBackAsTheSameValue() throws {
        let value = JSONValue.array([Self.claims, .number(1e-7), .number(1e300), .integer(-5), .string("")])
        let written = value.serialized
        #expect(JSONValue.parse(written) == value)
        #expect(try JSONDecoder().decode(JSONValue.self, from: Data(written)) == value)
    }
}
