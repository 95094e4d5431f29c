import AuthHandlerCrypto

/// The form of `stateKey` and `previousStateKeys` values (HTTP-API.md §2.3): 32 random bytes as base64url
/// without padding (RFC 4648 §5), exactly 43 characters.
package enum StateKeyFormat {
    /// The key length in bytes (AES-256).
    package static let byteCount = 32
    /// The encoded length: ⌈32 × 8 / 6⌉ characters.
    package static let encodedLength = 43
    /// A shell command that makes a key (coreutils basenc(1)).
    package static let howToMake = "openssl rand 32 | basenc --base64url | tr -d ="
    /// What a key must look like, and how to make one, for error messages.
    package static let expectation =
        "expected 32 random bytes in base64url without padding (\(encodedLength) characters); make one with: \(howToMake)"

    /// The key bytes, or nil unless `secret` is exactly the canonical unpadded base64url of 32 bytes.
    package static func decode(_ secret: Secret) -> [UInt8]? {
        let text = secret.reveal()
        guard text.utf8.count == encodedLength, let bytes = Base64.urlDecode(text), bytes.count == byteCount,
            Base64.urlEncode(bytes) == text
        else { return nil }
        return bytes
    }
}
