import COpenSSL

/// HKDF with SHA-256 (RFC 5869) on OpenSSL 3's `EVP_KDF`.
package enum HKDF {
    /// `length` bytes of output keying material from `inputKeyMaterial`, `salt` and `info` (RFC 5869 §2).
    package static func sha256(
        inputKeyMaterial: [UInt8], salt: [UInt8], info: [UInt8], length: Int
    ) throws(CryptoError) -> [UInt8] {
        guard length > 0, length <= 255 * 32 else {
            throw CryptoError(operation: "HKDF-SHA256", detail: "cannot derive \(length) bytes (RFC 5869 §2.3)")
        }
        guard let kdf = FetchedAlgorithm.hkdf?.pointer else { throw CryptoError.fromOpenSSL("EVP_KDF_fetch(HKDF)") }
        // A context per derivation: OpenSSL 3.0's HKDF cannot duplicate one (EVP_KDF_CTX_dup returns NULL for it).
        guard let context = EVP_KDF_CTX_new(kdf) else { throw CryptoError.fromOpenSSL("EVP_KDF_CTX_new(HKDF)") }
        defer { EVP_KDF_CTX_free(context) }
        var output = [UInt8](repeating: 0, count: length)
        // OSSL_PARAM keeps pointers, not copies (OSSL_PARAM(3)): every buffer stays alive across the derive call.
        // An empty octet string still needs a valid pointer, hence the one-byte stand-ins.
        var digest = Array("SHA256".utf8CString)
        var key = inputKeyMaterial.isEmpty ? [0] : inputKeyMaterial
        var saltBytes = salt.isEmpty ? [0] : salt
        var infoBytes = info.isEmpty ? [0] : info
        let derived: Int32 = digest.withUnsafeMutableBufferPointer { digestName in
            key.withUnsafeMutableBytes { keyBytes in
                saltBytes.withUnsafeMutableBytes { saltBuffer in
                    infoBytes.withUnsafeMutableBytes { infoBuffer in
                        // An empty salt or info is left out: OpenSSL refuses zero-length ones, and an absent salt
                        // is HashLen zero bytes, as RFC 5869 §2.2 defines it.
                        var parameters = [
                            OSSL_PARAM_construct_utf8_string(Name.digest, digestName.baseAddress, 0),
                            OSSL_PARAM_construct_octet_string(
                                Name.key, keyBytes.baseAddress, inputKeyMaterial.count),
                        ]
                        if !salt.isEmpty {
                            parameters.append(
                                OSSL_PARAM_construct_octet_string(
                                    Name.salt, saltBuffer.baseAddress, salt.count))
                        }
                        if !info.isEmpty {
                            parameters.append(
                                OSSL_PARAM_construct_octet_string(
                                    Name.info, infoBuffer.baseAddress, info.count))
                        }
                        parameters.append(OSSL_PARAM_construct_end())
                        return output.withUnsafeMutableBufferPointer { out in
                            EVP_KDF_derive(context, out.baseAddress, length, &parameters)
                        }
                    }
                }
            }
        }
        guard derived == 1 else { throw CryptoError.fromOpenSSL("EVP_KDF_derive(HKDF-SHA256)") }
        return output
    }

    /// Parameter names with static storage: an `OSSL_PARAM` keeps the pointer to its name, so a C string made from
    /// a Swift `String` for the call would dangle (OSSL_PARAM(3)). The values are OSSL_KDF_PARAM_* of core_names.h.
    private enum Name {
        static var digest: UnsafePointer<CChar> { pointer("digest") }
        static var key: UnsafePointer<CChar> { pointer("key") }
        static var salt: UnsafePointer<CChar> { pointer("salt") }
        static var info: UnsafePointer<CChar> { pointer("info") }

        private static func pointer(_ name: StaticString) -> UnsafePointer<CChar> {
            UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)
        }
    }
}
