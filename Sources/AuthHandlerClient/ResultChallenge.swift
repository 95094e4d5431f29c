import Foundation

/// The app's proof that it started a sign-in (HTTP-API.md §3.1, §3.3): a random `verifier` kept by the app, and its
/// `resultChallenge`, the base64url SHA-256 of the verifier's ASCII, sent with the start. The S256 method of
/// RFC 7636 §4.2, applied to the result code instead of the provider's code.
package enum ResultChallenge {
    /// How many random bytes a verifier holds: 32, so 43 base64url characters (RFC 7636 §7.1).
    package static let verifierByteCount = 32

    /// A fresh verifier from `generator`: 32 random bytes as unpadded base64url.
    package static func makeVerifier(using generator: inout some RandomNumberGenerator) -> String {
        base64URL(randomBytes(count: verifierByteCount, using: &generator))
    }

    /// The challenge for `verifier`: base64url(SHA-256(ASCII(verifier))), 43 characters.
    package static func challenge(forVerifier verifier: String) -> String {
        base64URL(SHA256Digest.hash(Array(verifier.utf8)))
    }

    /// `count` bytes from `generator`.
    package static func randomBytes(count: Int, using generator: inout some RandomNumberGenerator) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// Unpadded base64url (RFC 4648 §5).
    package static func base64URL(_ bytes: [UInt8]) -> String {
        var text = Data(bytes).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }
}
