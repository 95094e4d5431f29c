import AuthHandlerCrypto

/// A refresh token's one successor, stored sealed under a key derived from the token itself (issue 25 §4
/// "Refresh"): only a holder of the used token can open it, so a re-presentation within the allowed window gets the
/// same successor back, and the store still holds no usable token.
///
/// The key is HKDF-SHA256 (RFC 5869) of the presented token's text with ``info`` and no salt (a 256-bit random
/// token needs none, RFC 5869 §3.1); the box is AES-256-GCM (NIST SP 800-38D) under a fresh nonce. The store's
/// digest of the token is SHA-256 of its text, another function of it: knowing the digest gives no key.
package enum RefreshTokenSuccessorSeal {
    /// The HKDF `info` (RFC 5869 §3.2): names the purpose, so no other key derived from a token is this one.
    static let info = Array("auth-handler accounts refresh-token successor v1".utf8)

    /// The box opens only with something else than the presented token, or was altered.
    package struct OpenError: Error, Equatable, Sendable, CustomStringConvertible {
        package var description: String { "the sealed successor does not open with this refresh token" }
    }

    /// `successor` sealed so that only `presented` opens it.
    package static func seal(successor: RefreshToken, under presented: RefreshToken) throws(CryptoError) -> [UInt8] {
        try AES256GCM.seal(Array(successor.value.reveal().utf8), key: try key(for: presented))
    }

    /// The successor sealed in `box` under `presented`.
    package static func open(_ box: [UInt8], under presented: RefreshToken) throws(OpenError) -> RefreshToken {
        guard let key = try? key(for: presented), let plaintext = AES256GCM.open(box, key: key),
            let successor = RefreshToken(presented: String(decoding: plaintext, as: UTF8.self))
        else { throw OpenError() }
        return successor
    }

    private static func key(for token: RefreshToken) throws(CryptoError) -> [UInt8] {
        try HKDF.sha256(
            inputKeyMaterial: Array(token.value.reveal().utf8), salt: [], info: info, length: AES256GCM.keyLength)
    }
}
