import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerCrypto
@testable import AuthHandlerHTTP

/// HMAC known answers: RFC 2202 §3 (HMAC-SHA1) and RFC 4231 §4 (HMAC-SHA256).
struct CryptoHMACTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let name: String
        let key: [UInt8]
        let data: [UInt8]
        let digest: String
        var testDescription: String { name }
    }

    private static let hex = CryptoTestVectors.hex
    private static let key25 = Array(UInt8(0x01)...UInt8(0x19))

    /// RFC 2202 §3, test cases 1-7 (case 5's full 160-bit digest, before truncation).
    static let rfc2202: [Vector] = [
        Vector(
            name: "RFC 2202 case 1", key: [UInt8](repeating: 0x0b, count: 20), data: Array("Hi There".utf8),
            digest: "b617318655057264e28bc0b6fb378c8ef146be00"),
        Vector(
            name: "RFC 2202 case 2", key: Array("Jefe".utf8), data: Array("what do ya want for nothing?".utf8),
            digest: "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79"),
        Vector(
            name: "RFC 2202 case 3", key: [UInt8](repeating: 0xaa, count: 20),
            data: [UInt8](repeating: 0xdd, count: 50), digest: "125d7342b9ac11cd91a39af48aa17b4f63f175d3"),
        Vector(
            name: "RFC 2202 case 4", key: key25, data: [UInt8](repeating: 0xcd, count: 50),
            digest: "4c9007f4026250c6bc8414f9bf50c86c2d7235da"),
        Vector(
            name: "RFC 2202 case 5", key: [UInt8](repeating: 0x0c, count: 20),
            data: Array("Test With Truncation".utf8), digest: "4c1a03424b55e07fe7f27be1d58bb9324a9a5a04"),
        Vector(
            name: "RFC 2202 case 6", key: [UInt8](repeating: 0xaa, count: 80),
            data: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            digest: "aa4ae5e15272d00e95705637ce8a3b55ed402112"),
        Vector(
            name: "RFC 2202 case 7", key: [UInt8](repeating: 0xaa, count: 80),
            data: Array("Test Using Larger Than Block-Size Key and Larger Than One Block-Size Data".utf8),
            digest: "e8e99d0f45237d786d6bbaa7965c7808bbff1a91"),
    ]

    /// RFC 4231 §4.2-§4.8, test cases 1, 2, 3, 4, 6 and 7 (case 5 is a truncated output).
    static let rfc4231: [Vector] = [
        Vector(
            name: "RFC 4231 case 1", key: [UInt8](repeating: 0x0b, count: 20), data: Array("Hi There".utf8),
            digest: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        Vector(
            name: "RFC 4231 case 2", key: Array("Jefe".utf8), data: Array("what do ya want for nothing?".utf8),
            digest: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        Vector(
            name: "RFC 4231 case 3", key: [UInt8](repeating: 0xaa, count: 20),
            data: [UInt8](repeating: 0xdd, count: 50),
            digest: "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        Vector(
            name: "RFC 4231 case 4", key: key25, data: [UInt8](repeating: 0xcd, count: 50),
            digest: "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        Vector(
            name: "RFC 4231 case 6", key: [UInt8](repeating: 0xaa, count: 131),
            data: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            digest: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        Vector(
            name: "RFC 4231 case 7", key: [UInt8](repeating: 0xaa, count: 131),
            data: Array(
                ("This is a test using a larger than block-size key and a larger than block-size data. "
                    + "The key needs to be hashed before being used by the HMAC algorithm.").utf8),
            digest: "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ]

    @Test(arguments: rfc2202)
    func hmacSHA1MatchesRFC2202(_ vector: Vector) throws {
        #expect(try HMAC.sha1(key: vector.key, message: vector.data) == Self.hex(vector.digest))
    }

    @Test(arguments: rfc4231)
    func hmacSHA256MatchesRFC4231(_ vector: Vector) throws {
        #expect(try HMAC.sha256(key: vector.key, message: vector.data) == Self.hex(vector.digest))
    }

    @Test func genericEntryPointAgreesWithNamedOnes() throws {
        let vector = Self.rfc4231[1]
        #expect(try HMAC.authenticationCode(.sha256, key: vector.key, message: vector.data) == Self.hex(vector.digest))
        #expect(HMAC.Algorithm.sha1.outputLength == 20)
        #expect(HMAC.Algorithm.sha256.outputLength == 32)
    }

    /// An empty key is legal (OAuth 1.0a PLAINTEXT-style secrets can be empty); known answer computed
    /// independently with Python's `hmac.new(b"", b"", "sha1")`.
    @Test func emptyKeyAndMessageWork() throws {
        #expect(
            try HMAC.sha1(key: [UInt8](), message: [UInt8]()) == Self.hex("fbdb1d1b18aa6c08324b7d64b71fb76370690e1d"))
    }

    /// Every call duplicates one shared, pre-configured context; concurrent calls must not disturb each other.
    @Test func concurrentCallsShareTheTemplateSafely() async throws {
        let vector = Self.rfc4231[1]
        let expected = Self.hex(vector.digest)
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<64 {
                group.addTask {
                    (0..<200).allSatisfy { _ in (try? HMAC.sha256(key: vector.key, message: vector.data)) == expected }
                }
            }
            var all: [Bool] = []
            for try await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 64 && results.allSatisfy { $0 })
    }
}
