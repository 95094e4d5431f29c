import COpenSSL

/// AES-256-GCM authenticated encryption (NIST SP 800-38D) on OpenSSL's EVP cipher API.
///
/// A sealed box is `nonce (12 bytes) ‖ ciphertext ‖ tag (16 bytes)`. Each seal draws a fresh random nonce, so one
/// key may seal about 2^32 boxes before the nonce-collision bound of SP 800-38D §8.3 matters; the keys sealed
/// here (the state key, one key per result code) stay far below that.
package enum AES256GCM {
    /// Key length in bytes.
    package static let keyLength = 32
    /// Nonce length in bytes (the GCM default, the only one used).
    package static let nonceLength = 12
    /// Authentication tag length in bytes.
    package static let tagLength = 16
    /// Bytes a sealed box adds to its plaintext.
    package static let overhead = nonceLength + tagLength

    /// Encrypts and authenticates `plaintext`, binding `associatedData` (authenticated, not encrypted).
    package static func seal(_ plaintext: [UInt8], key: [UInt8], associatedData: [UInt8] = []) throws(CryptoError)
        -> [UInt8]
    {
        try seal(plaintext, key: key, associatedData: associatedData, nonce: try SecureRandom.bytes(nonceLength))
    }

    /// `seal` with a given nonce, for known-answer tests only: a nonce must never repeat under one key.
    static func seal(_ plaintext: [UInt8], key: [UInt8], associatedData: [UInt8], nonce: [UInt8]) throws(CryptoError)
        -> [UInt8]
    {
        guard key.count == keyLength, nonce.count == nonceLength else {
            throw CryptoError(
                operation: "AES-256-GCM seal", detail: "the key must have 32 bytes and the nonce 12")
        }
        let context = try CipherContext()
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count + 16)
        var tag = [UInt8](repeating: 0, count: tagLength)
        var written: Int32 = 0
        var total = 0
        guard EVP_EncryptInit_ex(context.pointer, EVP_aes_256_gcm(), nil, key, nonce) == 1 else {
            throw CryptoError.fromOpenSSL("EVP_EncryptInit_ex(AES-256-GCM)")
        }
        if !associatedData.isEmpty {
            guard
                EVP_EncryptUpdate(context.pointer, nil, &written, associatedData, Int32(clamping: associatedData.count))
                    == 1
            else { throw CryptoError.fromOpenSSL("EVP_EncryptUpdate(AES-256-GCM AAD)") }
        }
        let updated = ciphertext.withUnsafeMutableBufferPointer { out in
            EVP_EncryptUpdate(context.pointer, out.baseAddress, &written, plaintext, Int32(clamping: plaintext.count))
        }
        guard updated == 1 else { throw CryptoError.fromOpenSSL("EVP_EncryptUpdate(AES-256-GCM)") }
        total = Int(written)
        let finished = ciphertext.withUnsafeMutableBufferPointer { out in
            EVP_EncryptFinal_ex(context.pointer, out.baseAddress.map { $0 + total }, &written)
        }
        guard finished == 1 else { throw CryptoError.fromOpenSSL("EVP_EncryptFinal_ex(AES-256-GCM)") }
        total += Int(written)
        guard EVP_CIPHER_CTX_ctrl(context.pointer, EVP_CTRL_GCM_GET_TAG, Int32(tagLength), &tag) == 1 else {
            throw CryptoError.fromOpenSSL("EVP_CIPHER_CTX_ctrl(GCM_GET_TAG)")
        }
        return nonce + ciphertext.prefix(total) + tag
    }

    /// Decrypts a sealed box; nil when it was not sealed under `key` with `associatedData`, or was altered.
    package static func open(_ box: [UInt8], key: [UInt8], associatedData: [UInt8] = []) -> [UInt8]? {
        guard key.count == keyLength, box.count >= overhead, let context = try? CipherContext() else { return nil }
        let nonce = Array(box.prefix(nonceLength))
        let ciphertext = Array(box[nonceLength..<(box.count - tagLength)])
        var tag = Array(box.suffix(tagLength))
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count + 16)
        var written: Int32 = 0
        defer { ERR_clear_error() }
        guard EVP_DecryptInit_ex(context.pointer, EVP_aes_256_gcm(), nil, key, nonce) == 1 else { return nil }
        if !associatedData.isEmpty {
            guard
                EVP_DecryptUpdate(context.pointer, nil, &written, associatedData, Int32(clamping: associatedData.count))
                    == 1
            else { return nil }
        }
        let updated = plaintext.withUnsafeMutableBufferPointer { out in
            EVP_DecryptUpdate(context.pointer, out.baseAddress, &written, ciphertext, Int32(clamping: ciphertext.count))
        }
        guard updated == 1 else { return nil }
        let total = Int(written)
        guard EVP_CIPHER_CTX_ctrl(context.pointer, EVP_CTRL_GCM_SET_TAG, Int32(tagLength), &tag) == 1 else {
            return nil
        }
        // The tag is checked here: a wrong key, nonce, AAD or any altered byte fails (EVP_DecryptFinal_ex(3)).
        let finished = plaintext.withUnsafeMutableBufferPointer { out in
            EVP_DecryptFinal_ex(context.pointer, out.baseAddress.map { $0 + total }, &written)
        }
        guard finished == 1 else { return nil }
        return Array(plaintext.prefix(total + Int(written)))
    }
}

/// Owns one `EVP_CIPHER_CTX`, freed (and wiped by OpenSSL) when the value goes.
private final class CipherContext {
    let pointer: OpaquePointer

    init() throws(CryptoError) {
        guard let pointer = EVP_CIPHER_CTX_new() else { throw CryptoError.fromOpenSSL("EVP_CIPHER_CTX_new") }
        self.pointer = pointer
    }

    deinit { EVP_CIPHER_CTX_free(pointer) }
}
