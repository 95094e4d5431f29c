import Testing

@testable import AuthHandlerHTTP
@testable import AuthHandlerProtocols

struct PKCETests {
    @Test(
        "RFC 7636 Appendix B: dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk → E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    )
    func rfc7636AppendixB() throws {
        let challenge = try PKCE.challenge(forVerifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        #expect(challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }

    @Test func freshVerifiersAre43UnreservedCharactersAndDiffer() throws {
        let first = try PKCE.makeVerifier()
        let second = try PKCE.makeVerifier()
        #expect(first.utf8.count == 43)
        #expect(PKCE.isValidVerifier(first))
        #expect(first != second)
    }

    @Test func challengeMethodIsAlwaysS256() {
        #expect(PKCE.challengeMethod == "S256")
    }

    @Test(arguments: [43, 64, 128])
    func verifiersOfAllowedLengthsAreValid(_ length: Int) {
        let verifier = String(repeating: "aZ0-._~", count: 19).prefix(length)
        #expect(PKCE.isValidVerifier(String(verifier)))
    }

    @Test(arguments: [0, 42, 129, 200])
    func verifiersOfOtherLengthsAreRefused(_ length: Int) {
        let verifier = String(repeating: "a", count: length)
        #expect(throws: PKCE.Failure.invalidVerifier("it has \(length) characters")) {
            try PKCE.validateVerifier(verifier)
        }
    }

    @Test(arguments: ["+", "/", "=", " ", "%", "é"])
    func verifiersOutsideTheUnreservedSetAreRefused(_ character: String) {
        let verifier = String(repeating: "a", count: 42) + character
        #expect(!PKCE.isValidVerifier(verifier))
        #expect(throws: PKCE.Failure.self) { try PKCE.challenge(forVerifier: verifier) }
    }

    @Test func verificationAcceptsOnlyTheMatchingVerifier() throws {
        let verifier = try PKCE.makeVerifier()
        let challenge = try PKCE.challenge(forVerifier: verifier)
        #expect(PKCE.verify(verifier: verifier, matchesChallenge: challenge))
        #expect(!PKCE.verify(verifier: try PKCE.makeVerifier(), matchesChallenge: challenge))
        // A different last character (a fixed "A" would equal it one time in 64).
        let altered = String(challenge.dropLast()) + (challenge.hasSuffix("A") ? "B" : "A")
        #expect(!PKCE.verify(verifier: verifier, matchesChallenge: altered))
        #expect(!PKCE.verify(verifier: verifier, matchesChallenge: ""))
        #expect(!PKCE.verify(verifier: "short", matchesChallenge: challenge))
    }

    @Test func plainMethodIsNotOffered() throws {
        let verifier = try PKCE.makeVerifier()
        #expect(!PKCE.verify(verifier: verifier, matchesChallenge: verifier))
    }

    @Test func failureMessagesSayWhatToDo() {
        #expect(PKCE.Failure.invalidVerifier("it has 3 characters").description.contains("43 to 128 characters"))
    }
}
