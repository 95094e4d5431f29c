import AuthHandlerCrypto
import AuthHandlerSystem

/// How a result is kept at rest (HTTP-API.md §3.3): sealed with AES-256-GCM under a key derived from its result code by
/// HKDF-SHA256, while the store indexes it by SHA-256 of the code. Whoever holds a copy of the store but not the
/// code reads nothing; the code itself never reaches the store.
enum ResultSeal {
    /// HKDF's salt and info (RFC 5869 §3.1, §3.2): fixed, distinct from every other use of the code's bytes.
    private static let salt = Array("auth-handler result v1".utf8)
    private static let info = Array("AES-256-GCM key".utf8)
    private static let associatedData = Array("auth-handler result".utf8)

    static func seal(_ plaintext: [UInt8], code: String) throws(CryptoError) -> [UInt8] {
        try AES256GCM.seal(plaintext, key: try key(code), associatedData: associatedData)
    }

    /// The plaintext, or nil when the payload was not sealed under this code or was altered.
    static func open(_ sealed: [UInt8], code: String) -> [UInt8]? {
        guard let key = try? key(code) else { return nil }
        return AES256GCM.open(sealed, key: key, associatedData: associatedData)
    }

    /// The result's id for backends (the webhook's `resultId`, HTTP-API.md §2.8): 32 lowercase hex digits, HKDF-SHA256
    /// of the code under an `info` of its own, so it is the same for every redemption of one code, tells nothing of the
    /// code, and is neither the sealing key nor the store's SHA-256 index.
    static func resultID(_ code: String) throws(CryptoError) -> String {
        Hex.lowercase(
            try HKDF.sha256(inputKeyMaterial: Array(code.utf8), salt: salt, info: resultIDInfo, length: 16))
    }

    private static let resultIDInfo = Array("result id".utf8)

    private static func key(_ code: String) throws(CryptoError) -> [UInt8] {
        try HKDF.sha256(inputKeyMaterial: Array(code.utf8), salt: salt, info: info, length: AES256GCM.keyLength)
    }
}
