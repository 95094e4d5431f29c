import Foundation
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerCrypto
@testable import auth_handler

/// The state key ring (HTTP-API.md §2.3, §3.1): a sealed value opens only under the cookie name it was sealed for, and
/// under a previous key after rotation.
struct FlowStateKeyRingTests {
    static let plaintext = Array(#"{"p":"google.com","s":"state"}"#.utf8)

    @Test func aValueSealedForOneNameOpensUnderItAndUnderNoOther() throws {
        let ring = try StateKeyRing.random()
        let sealed = try ring.seal(Self.plaintext, context: "auth-handler-AAAAAAAAAAAAAAAA")
        #expect(ring.open(sealed, context: "auth-handler-AAAAAAAAAAAAAAAA") == Self.plaintext)
        #expect(ring.open(sealed, context: "auth-handler-BBBBBBBBBBBBBBBB") == nil)
        #expect(ring.open(sealed, context: "__Host-auth-handler-AAAAAAAAAAAAAAAA") == nil)
        #expect(ring.open(sealed, context: "") == nil)
    }

    @Test func aRotatedKeyStillOpensWhatItSealedAndAnUnknownKeyDoesNot() throws {
        let old = try StateKeyRing.random()
        let sealed = try old.seal(Self.plaintext, context: "auth-handler-A")
        let rotated = try StateKeyRing(current: try SecureRandom.bytes(32), previous: [old.current])
        #expect(rotated.open(sealed, context: "auth-handler-A") == Self.plaintext)
        #expect(rotated.open(sealed, context: "auth-handler-B") == nil)
        #expect(try StateKeyRing.random().open(sealed, context: "auth-handler-A") == nil)
    }

    @Test func aKeyOfAnotherLengthIsRefused() {
        #expect(throws: StateKeyRing.KeyError.self) { try StateKeyRing(current: Array(repeating: 1, count: 16)) }
        #expect(throws: StateKeyRing.KeyError.self) {
            try StateKeyRing(current: Array(repeating: 1, count: 32), previous: [[1, 2]])
        }
    }
}
