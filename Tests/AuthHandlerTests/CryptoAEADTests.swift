import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerCrypto
@testable import AuthHandlerHTTP

/// AES-256-GCM and HKDF-SHA256 against published known answers, and the refusals that make them safe to use.
struct CryptoAEADTests {
    /// "The Galois/Counter Mode of Operation (GCM)", McGrew and Viega, Appendix B, test case 16 (AES-256, 96-bit IV,
    /// with additional data).
    @Test func aesGCMMatchesTestCase16() throws {
        let key = CryptoTestVectors.hex("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308")
        let nonce = CryptoTestVectors.hex("cafebabefacedbaddecaf888")
        let plaintext = CryptoTestVectors.hex(
            "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39"
        )
        let aad = CryptoTestVectors.hex("feedfacedeadbeeffeedfacedeadbeefabaddad2")
        let expected =
            nonce
            + CryptoTestVectors.hex(
                "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662"
            ) + CryptoTestVectors.hex("76fc6ece0f4e1768cddf8853bb2d551b")
        let box = try AES256GCM.seal(plaintext, key: key, associatedData: aad, nonce: nonce)
        #expect(box == expected)
        #expect(AES256GCM.open(box, key: key, associatedData: aad) == plaintext)
    }

    @Test func openRefusesAnyAlteration() throws {
        let key = try SecureRandom.bytes(32)
        let box = try AES256GCM.seal(Array("a pending sign-in".utf8), key: key, associatedData: Array("name".utf8))
        #expect(AES256GCM.open(box, key: key, associatedData: Array("name".utf8)) == Array("a pending sign-in".utf8))
        for index in [0, AES256GCM.nonceLength, box.count - 1] {
            var altered = box
            altered[index] ^= 0x01
            #expect(AES256GCM.open(altered, key: key, associatedData: Array("name".utf8)) == nil)
        }
        #expect(AES256GCM.open(box, key: key, associatedData: Array("other".utf8)) == nil)
        #expect(AES256GCM.open(box, key: try SecureRandom.bytes(32), associatedData: Array("name".utf8)) == nil)
        #expect(AES256GCM.open(Array(box.prefix(27)), key: key) == nil)
        #expect(AES256GCM.open(box, key: Array(key.prefix(16)), associatedData: Array("name".utf8)) == nil)
    }

    @Test func sealsDifferentlyEachTime() throws {
        let key = try SecureRandom.bytes(32)
        let first = try AES256GCM.seal([1, 2, 3], key: key)
        let second = try AES256GCM.seal([1, 2, 3], key: key)
        #expect(first != second)
        #expect(first.count == 3 + AES256GCM.overhead)
        #expect(AES256GCM.open(try AES256GCM.seal([], key: key), key: key) == [])
    }

    /// RFC 5869 Appendix A.1 (basic test case with SHA-256) and A.3 (zero-length salt and info).
    @Test func hkdfMatchesRFC5869() throws {
        let okm = try HKDF.sha256(
            inputKeyMaterial: CryptoTestVectors.hex("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b"),
            salt: CryptoTestVectors.hex("000102030405060708090a0b0c"),
            info: CryptoTestVectors.hex("f0f1f2f3f4f5f6f7f8f9"),
            length: 42)
        #expect(
            okm
                == CryptoTestVectors.hex(
                    "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"))
        let noSalt = try HKDF.sha256(
            inputKeyMaterial: CryptoTestVectors.hex("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b"), salt: [], info: [],
            length: 42)
        #expect(
            noSalt
                == CryptoTestVectors.hex(
                    "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"))
        #expect(throws: CryptoError.self) { try HKDF.sha256(inputKeyMaterial: [1], salt: [], info: [], length: 0) }
    }
}
