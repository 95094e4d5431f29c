import Testing

@testable import AuthHandlerCrypto

/// `SecureRandom`: lengths, and that draws are not repeated.
struct CryptoSecureRandomTests {
    @Test(arguments: [0, 1, 16, 32, 1000])
    func returnsRequestedLength(_ count: Int) throws {
        #expect(try SecureRandom.bytes(count).count == count)
    }

    /// Two 32-byte draws collide with probability 2^-256; equality means a broken generator.
    @Test func twoDrawsDiffer() throws {
        #expect(try SecureRandom.bytes(32) != SecureRandom.bytes(32))
        #expect(try SecureRandom.base64URLString(byteCount: 32) != SecureRandom.base64URLString(byteCount: 32))
    }

    /// 32 bytes are 43 base64url characters with no padding and no `+` or `/`.
    @Test func base64URLStringHasExpectedShape() throws {
        let text = try SecureRandom.base64URLString(byteCount: 32)
        #expect(text.count == 43)
        #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
        #expect(Base64.urlDecode(text)?.count == 32)
    }

    @Test func negativeCountThrowsInsteadOfTrapping() {
        #expect(throws: CryptoError.self) { try SecureRandom.bytes(-1) }
    }

    /// Small draws come from a pool refilled 4 KiB at a time: draws that cross several refills, of
    /// sizes that do not divide 4096, are all different and never all-zero (the pool wipes what it hands out).
    @Test func pooledDrawsAcrossRefillsAreAllDifferent() throws {
        var seen: Set<[UInt8]> = []
        for draw in 0..<600 {
            let bytes = try SecureRandom.bytes(draw % 2 == 0 ? 32 : 24)
            #expect(bytes.contains { $0 != 0 })
            #expect(seen.insert(bytes).inserted)
        }
    }
}
