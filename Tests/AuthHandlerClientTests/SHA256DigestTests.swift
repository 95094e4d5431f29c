import AuthHandlerClient
import AuthHandlerCrypto
import Testing

/// The client's own SHA-256 against the FIPS 180-2 Appendix B examples (FIPS 180-4's "example values") and OpenSSL.
struct SHA256DigestTests {
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    @Test("FIPS 180-2 B.1: one block, \"abc\"")
    func oneBlock() {
        #expect(
            Self.hex(SHA256Digest.hash(Array("abc".utf8)))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test("FIPS 180-2 B.2: a 448-bit message, whose padding takes a second block")
    func twoBlocks() {
        let message = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        #expect(
            Self.hex(SHA256Digest.hash(message)) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test("FIPS 180-2 B.3: one million \"a\"")
    func millionA() {
        #expect(
            Self.hex(SHA256Digest.hash(repeatElement(UInt8(ascii: "a"), count: 1_000_000)))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("the empty message (NIST CAVP SHA256ShortMsg, Len = 0)")
    func empty() {
        #expect(
            Self.hex(SHA256Digest.hash([UInt8]()))
                == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test("every length from 0 to 300 bytes (each padding case, 1 to 5 blocks) agrees with OpenSSL")
    func agreesWithOpenSSL() throws {
        for length in 0...300 {
            let message = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ length) }
            #expect(SHA256Digest.hash(message) == (try SHA256.hash(message)), "length \(length)")
        }
    }
}
