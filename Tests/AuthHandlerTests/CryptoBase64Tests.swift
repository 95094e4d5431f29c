import Testing

@testable import AuthHandlerCrypto

/// Base64 and base64url: RFC 4648 §10 test vectors and the JOSE rules of RFC 7515 §2.
struct CryptoBase64Tests {
    /// RFC 4648 §10, BASE64 test vectors.
    static let rfc4648: [(String, String)] = [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="),
        ("foobar", "Zm9vYmFy"),
    ]

    @Test func standardEncodingMatchesRFC4648Section10() {
        for (plain, encoded) in Self.rfc4648 {
            #expect(Base64.encode(Array(plain.utf8)) == encoded)
            #expect(Base64.decode(encoded) == Array(plain.utf8))
        }
    }

    @Test func urlEncodingDropsPaddingOfRFC4648Vectors() {
        for (plain, encoded) in Self.rfc4648 {
            let unpadded = String(encoded.prefix { $0 != "=" })
            #expect(Base64.urlEncode(Array(plain.utf8)) == unpadded)
            #expect(Base64.urlDecode(unpadded) == Array(plain.utf8))
        }
    }

    @Test func urlDecodingAcceptsPaddedInput() {
        #expect(Base64.urlDecode("Zg==") == Array("f".utf8))
        #expect(Base64.urlDecode("Zm8=") == Array("fo".utf8))
    }

    /// 0xfb 0xff encodes to "+/8=" in base64 and "-_8" in base64url (RFC 4648 §5 alphabet).
    @Test func urlAlphabetUsesMinusAndUnderscore() {
        let bytes: [UInt8] = [0xfb, 0xff]
        #expect(Base64.encode(bytes) == "+/8=")
        #expect(Base64.urlEncode(bytes) == "-_8")
        #expect(Base64.urlDecode("-_8") == bytes)
    }

    @Test func urlDecodingRefusesStandardAlphabetCharacters() {
        #expect(Base64.urlDecode("+/8") == nil)
        #expect(Base64.urlDecode("-/8") == nil)
        #expect(Base64.urlDecode("+_8") == nil)
    }

    @Test func urlDecodingRefusesMalformedInput() {
        #expect(Base64.urlDecode("Z") == nil)  // one leftover character cannot encode a byte
        #expect(Base64.urlDecode("Zm9v!") == nil)
        #expect(Base64.urlDecode("Zm 9v") == nil)
        #expect(Base64.urlDecode("Zg=a") == nil)
    }

    @Test func standardDecodingRefusesMissingPaddingAndGarbage() {
        #expect(Base64.decode("Zg") == nil)
        #expect(Base64.decode("Zm9v!") == nil)
        #expect(Base64.decode("Zg=a") == nil)
        #expect(Base64.decode("Zg=====") == nil)
        #expect(Base64.decode("-_8=") == nil)
    }

    /// corelibs-foundation decodes `"Zg=a"` as `[0x66, 0x1a]`; padding belongs only at the end.
    @Test func paddingInTheMiddleIsRefused() {
        #expect(Base64.urlDecode("Zg=a") == nil)
        #expect(Base64.urlDecode("Zg==Zg==") == nil)
        #expect(Base64.urlDecode("Zg===") == nil)
    }

    @Test func emptyInputDecodesToNoBytes() {
        #expect(Base64.urlDecode("") == [])
        #expect(Base64.decode("") == [])
    }
}
