import AuthHandlerCrypto
import AuthHandlerHTTP

/// The keys that seal pending sign-ins into the browser's cookie (HTTP-API.md §2.3 `stateKey`, `previousStateKeys`).
///
/// Sealing always uses the current key; opening tries the current key, then each previous one, so a key can be
/// rotated without failing the sign-ins that were started under the old one (keep it in `previousStateKeys` for at
/// least `sessionTTLSeconds`).
package struct StateKeyRing: Sendable {
    /// The 32-byte key every new cookie is sealed under.
    package let current: [UInt8]
    /// Keys accepted for opening only.
    package let previous: [[UInt8]]

    /// Why a key was refused.
    package struct KeyError: Error, Sendable, CustomStringConvertible {
        package let description: String
    }

    /// A ring from raw 32-byte keys.
    package init(current: [UInt8], previous: [[UInt8]] = []) throws(KeyError) {
        guard current.count == AES256GCM.keyLength, previous.allSatisfy({ $0.count == AES256GCM.keyLength }) else {
            throw KeyError(description: "a state key must be 32 bytes")
        }
        self.current = current
        self.previous = previous
    }

    /// A ring with a fresh random key (the memory store's, and tests').
    package static func random() throws(CryptoError) -> StateKeyRing {
        let key = try SecureRandom.bytes(AES256GCM.keyLength)
        // A fresh key always has 32 bytes.
        guard let ring = try? StateKeyRing(current: key) else {
            throw CryptoError(operation: "RAND_bytes", detail: "drew \(key.count) bytes, not 32")
        }
        return ring
    }

    /// Seals `plaintext`, bound to `context` (the cookie's name), as base64url text safe for a cookie value.
    package func seal(_ plaintext: [UInt8], context: String) throws(CryptoError) -> String {
        Base64.urlEncode(
            [Self.formatVersion] + (try AES256GCM.seal(plaintext, key: current, associatedData: Self.aad(context))))
    }

    /// Opens text sealed by `seal` under this ring's current or a previous key; nil when it does not open.
    func open(_ text: String, context: String) -> [UInt8]? {
        guard let bytes = Base64.urlDecode(text), bytes.first == Self.formatVersion else { return nil }
        let box = Array(bytes.dropFirst())
        let aad = Self.aad(context)
        for key in [current] + previous {
            if let plaintext = AES256GCM.open(box, key: key, associatedData: aad) { return plaintext }
        }
        return nil
    }

    /// The first byte of every sealed value, so a later format can be told apart.
    static let formatVersion: UInt8 = 1

    private static func aad(_ context: String) -> [UInt8] {
        Array("auth-handler pending sign-in v1\u{0}".utf8) + Array(context.utf8)
    }
}
