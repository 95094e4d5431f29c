import Testing

@testable import AuthHandlerSystem

struct SystemHexTests {
    @Test func lowercaseWritesTwoDigitsPerByte() {
        #expect(Hex.lowercase([0x00, 0x0F, 0xA5, 0xFF]) == "000fa5ff")
        #expect(Hex.lowercase([]) == "")
    }

    @Test func bytesReadsEitherCaseAndRefusesTheRest() {
        #expect(Hex.bytes("000fA5ff") == [0x00, 0x0F, 0xA5, 0xFF])
        #expect(Hex.bytes("") == [])
        #expect(Hex.bytes("abc") == nil)
        #expect(Hex.bytes("0g") == nil)
        #expect(Hex.bytes("+1") == nil)
    }

    @Test func digitsAndValuesAgree() {
        for nibble in UInt8(0)..<16 {
            #expect(Hex.value(Hex.digit(nibble, uppercase: true)) == nibble)
            #expect(Hex.value(Hex.digit(nibble, uppercase: false)) == nibble)
        }
        #expect(Hex.digit(0xA, uppercase: true) == UInt8(ascii: "A"))
        #expect(Hex.digit(0xA, uppercase: false) == UInt8(ascii: "a"))
    }
}
