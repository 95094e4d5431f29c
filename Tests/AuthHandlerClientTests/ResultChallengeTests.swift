import AuthHandlerClient
import Testing

/// The verifier and its S256 challenge (HTTP-API.md §3.1), against RFC 7636 Appendix B.
struct ResultChallengeTests {
    /// RFC 7636 Appendix B: the 32 octets of the example verifier.
    static let appendixBOctets: [UInt8] = [
        116, 24, 223, 180, 151, 153, 224, 37, 79, 250, 96, 125, 216, 173, 187, 186, 22, 212, 37, 77, 105, 214, 191, 240,
        91, 88, 5, 88, 83, 132, 141, 121,
    ]

    @Test("RFC 7636 Appendix B: the octets as base64url are the verifier")
    func verifierEncoding() {
        #expect(ResultChallenge.base64URL(Self.appendixBOctets) == "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
    }

    @Test("RFC 7636 Appendix B: the verifier's S256 challenge")
    func challenge() {
        #expect(
            ResultChallenge.challenge(forVerifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
                == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }

    @Test("a fresh verifier is 32 random bytes: 43 base64url characters, different each time")
    func freshVerifier() {
        var generator = SystemRandomNumberGenerator()
        let verifiers = (0..<64).map { _ in ResultChallenge.makeVerifier(using: &generator) }
        #expect(Set(verifiers).count == 64)
        for verifier in verifiers {
            #expect(verifier.utf8.count == 43)
            #expect(verifier.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        }
    }

    @Test("base64url has no padding and uses - and _")
    func base64URLAlphabet() {
        #expect(ResultChallenge.base64URL([0xfb, 0xff]) == "-_8")
        #expect(ResultChallenge.base64URL([]) == "")
        #expect(ResultChallenge.base64URL([0]) == "AA")
    }
}
