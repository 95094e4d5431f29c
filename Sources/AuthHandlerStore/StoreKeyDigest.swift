import AuthHandlerCrypto

/// The SHA-256 under which a store keeps a key or result code, so a copy of the store holds nothing replayable.
enum StoreKeyDigest {
    /// The 32-byte digest of the key's UTF-8 bytes.
    static func of(_ key: String) throws(StoreError) -> [UInt8] {
        do {
            return try SHA256.hash(Array(key.utf8))
        } catch {
            throw StoreError(.unavailable, detail: "hashing a key: \(error)")
        }
    }
}
