import AuthHandlerCrypto

/// A user's id (docs/ACCOUNTS.md "The model"): 28 random URL-safe characters, the length and alphabet of a Firebase
/// uid, so that apps written for Firebase store it unchanged.
///
/// 21 bytes from the CSPRNG (168 bits) are exactly 28 base64url characters (RFC 4648 §5) with no padding.
package struct LocalID: Hashable, Sendable, CustomStringConvertible {
    /// The number of random bytes behind an id.
    package static let byteCount = 21
    /// The number of characters of an id.
    package static let length = 28

    package let value: String

    /// A new random id.
    package static func generate() throws(CryptoError) -> LocalID {
        LocalID(checked: try SecureRandom.base64URLString(byteCount: byteCount))
    }

    /// An id read back from storage or a request: nil unless it is 1 to 128 URL-safe characters (an imported
    /// Firebase uid may be up to 128 characters; ours are 28).
    package init?(_ value: String) {
        guard (1...128).contains(value.utf8.count),
            value.utf8.allSatisfy(Self.isURLSafe)
        else { return nil }
        self.value = value
    }

    /// RFC 4648 §5's alphabet: ASCII letters, digits, `-` and `_`.
    private static func isURLSafe(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default: false
        }
    }

    private init(checked value: String) {
        self.value = value
    }

    package var description: String { value }
}
