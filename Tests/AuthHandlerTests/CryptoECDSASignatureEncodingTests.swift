import Testing

@testable import AuthHandlerCrypto

/// DER `ECDSA-Sig-Value` (RFC 3279 §2.2.3) to and from JOSE's fixed-width `r || s` (RFC 7518 §3.4).
struct CryptoECDSASignatureEncodingTests {
    private let hex = CryptoTestVectors.hex

    /// r = 1, s = 2: DER is SEQUENCE { INTEGER 1, INTEGER 2 }; the raw form keeps 31 leading zeros each.
    @Test func smallIntegersArePaddedToFullWidth() throws {
        let der = hex("3006 020101 020102")
        let raw = try ECDSASignatureEncoding.raw(fromDER: der, coordinateLength: 32)
        #expect(raw == [UInt8](repeating: 0, count: 31) + [1] + [UInt8](repeating: 0, count: 31) + [2])
        #expect(ECDSASignatureEncoding.der(fromRaw: raw, coordinateLength: 32) == der)
    }

    /// A high top bit needs a 0x00 sign byte in DER, and loses it again in the raw form.
    @Test func highBitIntegersRoundTrip() throws {
        let r = [UInt8](repeating: 0xff, count: 32)
        let s = [UInt8](repeating: 0x80, count: 32)
        let der = try #require(ECDSASignatureEncoding.der(fromRaw: r + s, coordinateLength: 32))
        #expect(der == hex("3046 022100") + r + hex("022100") + s)
        #expect(try ECDSASignatureEncoding.raw(fromDER: der, coordinateLength: 32) == r + s)
    }

    /// RFC 7515 A.3.1 prints R and S as octet arrays; they are the halves of the compact signature.
    @Test func rfc7515AppendixA3SignatureRoundTripsThroughDER() throws {
        let (_, signature) = CryptoTestVectors.split(CryptoTestVectors.es256JWS)
        #expect(Array(signature.prefix(4)) == [14, 209, 33, 83])
        #expect(Array(signature.suffix(4)) == [131, 163, 84, 213])
        let der = try #require(ECDSASignatureEncoding.der(fromRaw: signature, coordinateLength: 32))
        #expect(try ECDSASignatureEncoding.raw(fromDER: der, coordinateLength: 32) == signature)
    }

    @Test func wrongRawLengthHasNoDER() {
        #expect(ECDSASignatureEncoding.der(fromRaw: [UInt8](repeating: 1, count: 63), coordinateLength: 32) == nil)
        #expect(ECDSASignatureEncoding.der(fromRaw: [UInt8](repeating: 1, count: 65), coordinateLength: 32) == nil)
        #expect(ECDSASignatureEncoding.der(fromRaw: [], coordinateLength: 32) == nil)
    }

    @Test func malformedDERIsRefused() {
        #expect(throws: CryptoError.self) { try ECDSASignatureEncoding.raw(fromDER: [], coordinateLength: 32) }
        #expect(throws: CryptoError.self) {
            try ECDSASignatureEncoding.raw(fromDER: hex("3006 020101 020102 00"), coordinateLength: 32)
        }
        #expect(throws: CryptoError.self) {
            try ECDSASignatureEncoding.raw(fromDER: hex("3006 020101 0201"), coordinateLength: 32)
        }
    }

    /// An integer wider than the coordinate cannot be a P-256 `r`.
    @Test func oversizedIntegerIsRefused() {
        let der = hex("3026 0221 01") + [UInt8](repeating: 0x11, count: 32) + hex("020101")
        #expect(throws: CryptoError.self) { try ECDSASignatureEncoding.raw(fromDER: der, coordinateLength: 32) }
    }
}
