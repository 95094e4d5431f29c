import AuthHandlerCrypto
import Testing

@testable import AuthHandlerAccounts

/// Refresh tokens: their shape and digest, and the successor sealed under the token itself (issue 25 §4).
@Suite struct AccountsRefreshTokenTests {
    @Test("a new token is 43 base64url characters from 32 random bytes, its digest SHA-256 of the text")
    func shape() throws {
        let token = try RefreshToken.generate()
        let text = token.value.reveal()
        #expect(text.count == 43)
        #expect(Base64.urlDecode(text)?.count == 32)
        #expect(try token.digest() == SHA256.hash(Array(text.utf8)))
        #expect(try RefreshToken.generate() != token)
        #expect(!"\(token)".contains(text))
        #expect(!String(reflecting: token).contains(text))
    }

    @Test(
        "a presented token must have a token's shape",
        arguments: [
            "", "short", String(repeating: "A", count: 44),
            String(repeating: "+", count: 43), String(repeating: "A", count: 42) + "=",
        ])
    func presentedShape(_ text: String) {
        #expect(RefreshToken(presented: text) == nil)
    }

    @Test("the successor opens with the presented token, and with no other")
    func sealRoundTrip() throws {
        let presented = try RefreshToken.generate()
        let successor = try RefreshToken.generate()
        let box = try RefreshTokenSuccessorSeal.seal(successor: successor, under: presented)
        #expect(try RefreshTokenSuccessorSeal.open(box, under: presented) == successor)
        // The box holds neither token in the clear.
        for token in [presented, successor] {
            #expect(!box.containsSubsequence(Array(token.value.reveal().utf8)))
        }
        #expect(throws: RefreshTokenSuccessorSeal.OpenError.self) {
            try RefreshTokenSuccessorSeal.open(box, under: successor)
        }
        #expect(throws: RefreshTokenSuccessorSeal.OpenError.self) {
            try RefreshTokenSuccessorSeal.open(box, under: try RefreshToken.generate())
        }
        var altered = box
        altered[altered.count / 2] ^= 0x01
        #expect(throws: RefreshTokenSuccessorSeal.OpenError.self) {
            try RefreshTokenSuccessorSeal.open(altered, under: presented)
        }
    }

    @Test("the key is HKDF-SHA256 of the token text with the purpose as info")
    func keyDerivation() throws {
        let presented = try RefreshToken.generate()
        let successor = try RefreshToken.generate()
        let box = try RefreshTokenSuccessorSeal.seal(successor: successor, under: presented)
        let key = try HKDF.sha256(
            inputKeyMaterial: Array(presented.value.reveal().utf8), salt: [],
            info: Array("auth-handler accounts refresh-token successor v1".utf8), length: 32)
        #expect(AES256GCM.open(box, key: key) == Array(successor.value.reveal().utf8))
    }
}

extension Array where Element == UInt8 {
    fileprivate func containsSubsequence(_ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return false }
        return (0...(count - needle.count)).contains { self[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
