import AuthHandlerCrypto

/// The hashing itself, behind a seam so that tests can count or hold the calls: argon2id through libargon2 in the
/// product (``Argon2idEngine``).
package protocol PasswordHashingEngine: Sendable {
    /// `password` hashed under a fresh salt, as a PHC string.
    func hash(_ password: [UInt8], parameters: Argon2id.Parameters) throws(CryptoError) -> String
    /// Whether `password` is the one `encoded` was made from.
    func verify(_ password: [UInt8], encoded: String) throws(CryptoError) -> Bool
}

/// ``PasswordHashingEngine`` on libargon2 (AuthHandlerCrypto's `Argon2id`).
package struct Argon2idEngine: PasswordHashingEngine {
    package init() {}

    package func hash(_ password: [UInt8], parameters: Argon2id.Parameters) throws(CryptoError) -> String {
        try Argon2id.hash(password, parameters: parameters)
    }

    package func verify(_ password: [UInt8], encoded: String) throws(CryptoError) -> Bool {
        try Argon2id.verify(password, encoded: encoded)
    }
}
