import Foundation
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP

/// A stored result is written and read through `JSONValue` (`StoredResult+JSON`); its JSON must stay the one the
/// synthesized `Codable` conformance reads and writes, so results written by either form open in the other.
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

    @Test(arguments: results)
    func readsAndWritesWhatCodableDoes(_ result: StoredResult) throws {
        let written = result.json.serialized
        #expect(try JSONDecoder().decode(StoredResult.self, from: Data(written)) == result)
        let encoded = Array(try JSONEncoder().encode(result))
        #expect(JSONValue.parse(encoded).flatMap(StoredResult.init(json:)) == result)
        #expect(JSONValue.parse(written).flatMap(StoredResult.init(json:)) == result)
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
