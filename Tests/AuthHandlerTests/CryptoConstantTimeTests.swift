import Testing

@testable import AuthHandlerCrypto

/// `ConstantTime.equals`: the comparison for MACs, OAuth state and PKCE verifiers.
struct CryptoConstantTimeTests {
    @Test func equalBytesCompareEqual() {
        let mac: [UInt8] = Array(0..<32)
        #expect(ConstantTime.equals(mac, Array(0..<32) as [UInt8]))
    }

    @Test func differenceInLastByteIsFound() {
        var other: [UInt8] = Array(0..<32)
        other[31] ^= 0x01
        #expect(!ConstantTime.equals(Array(0..<32) as [UInt8], other))
    }

    @Test func differenceInFirstByteIsFound() {
        var other: [UInt8] = Array(0..<32)
        other[0] ^= 0x80
        #expect(!ConstantTime.equals(Array(0..<32) as [UInt8], other))
    }

    @Test func differentLengthsAreNotEqual() {
        let long: [UInt8] = Array(0..<32)
        #expect(!ConstantTime.equals(long, Array(long.prefix(31))))
        #expect(!ConstantTime.equals(Array(long.prefix(31)), long))
        #expect(!ConstantTime.equals([UInt8](), long))
    }

    @Test func emptyInputsAreEqual() {
        #expect(ConstantTime.equals([UInt8](), [UInt8]()))
        #expect(ConstantTime.equals("", ""))
    }

    @Test func stringsCompareByUTF8() {
        #expect(ConstantTime.equals("state-123", "state-123"))
        #expect(!ConstantTime.equals("state-123", "state-124"))
        #expect(!ConstantTime.equals("é", "e"))
    }
}
