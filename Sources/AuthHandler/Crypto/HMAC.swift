import COpenSSL
import Foundation

/// Keyed-hash message authentication codes (RFC 2104) on OpenSSL's one-shot `HMAC()`.
public enum HMAC {
    /// The hash functions OAuth 1.0a and our webhook signatures use.
    public enum Algorithm: Sendable {
        case sha1
        case sha256

        /// Length of the MAC in bytes.
        public var outputLength: Int {
            switch self {
            case .sha1: 20
            case .sha256: 32
            }
        }

        fileprivate var evp: OpaquePointer? {
            switch self {
            case .sha1: EVP_sha1()
            case .sha256: EVP_sha256()
            }
        }
    }

    /// The MAC of `message` under `key`, working directly on the caller's bytes.
    public static func authenticationCode(
        _ algorithm: Algorithm, key: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer
    ) throws(CryptoError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        // An empty key is legal in HMAC; OpenSSL wants a non-NULL pointer for it.
        let emptyKey: [UInt8] = [0]
        let result: UnsafeMutablePointer<UInt8>? = emptyKey.withUnsafeBytes { empty in
            let keyBase = key.count > 0 ? key.baseAddress : empty.baseAddress
            return output.withUnsafeMutableBufferPointer { out in
                COpenSSL.HMAC(
                    algorithm.evp, keyBase, Int32(key.count),
                    message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count,
                    out.baseAddress, &length)
            }
        }
        guard result != nil, Int(length) == algorithm.outputLength else {
            throw CryptoError.fromOpenSSL("HMAC")
        }
        output.removeSubrange(Int(length)...)
        return output
    }

    /// The MAC of `message` under `key`.
    public static func authenticationCode(
        _ algorithm: Algorithm, key: some ContiguousBytes, message: some ContiguousBytes
    ) throws(CryptoError) -> [UInt8] {
        let result: Result<[UInt8], CryptoError> = key.withUnsafeBytes { keyBytes in
            message.withUnsafeBytes { messageBytes in
                Result { () throws(CryptoError) in
                    try authenticationCode(algorithm, key: keyBytes, message: messageBytes)
                }
            }
        }
        return try result.get()
    }

    /// HMAC-SHA1 (OAuth 1.0a's default signature method).
    public static func sha1(key: some ContiguousBytes, message: some ContiguousBytes) throws(CryptoError) -> [UInt8] {
        try authenticationCode(.sha1, key: key, message: message)
    }

    /// HMAC-SHA256.
    public static func sha256(key: some ContiguousBytes, message: some ContiguousBytes) throws(CryptoError) -> [UInt8] {
        try authenticationCode(.sha256, key: key, message: message)
    }
}
