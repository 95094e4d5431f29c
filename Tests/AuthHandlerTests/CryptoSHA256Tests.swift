import Testing

@testable import AuthHandlerCrypto

/// SHA-256 known answers from FIPS 180-2 Appendix B (also the NIST "example values").
struct CryptoSHA256Tests {
    @Test func abcMatchesFIPS180AppendixB1() throws {
        #expect(
            try SHA256.hash(Array("abc".utf8))
                == CryptoTestVectors.hex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"))
    }

    @Test func twoBlockMessageMatchesFIPS180AppendixB2() throws {
        let message = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        #expect(
            try SHA256.hash(message)
                == CryptoTestVectors.hex("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"))
    }

    /// The empty string's digest (NIST CAVP SHA256ShortMsg, Len = 0).
    @Test func emptyInput() throws {
        #expect(
            try SHA256.hash([UInt8]())
                == CryptoTestVectors.hex("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"))
    }
}
