import COpenSSL
import Foundation

/// Keyed-hash message authentication codes (RFC 2104) on OpenSSL 3's `EVP_MAC`.
///
/// Why not the one-shot `HMAC()`: in OpenSSL 3 it fetches the MAC and the digest by name on every call,
/// which cost two thirds of the time of a 256-byte HMAC-SHA1 here. Instead one context per algorithm is
/// set up once with its digest, and each call works on a duplicate of it (`EVP_MAC_CTX_dup`), keyed anew.
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

        fileprivate var template: HMACTemplate? {
            switch self {
            case .sha1: HMACTemplate.sha1
            case .sha256: HMACTemplate.sha256
            }
        }
    }

    /// The MAC of `message` under `key`, working directly on the caller's bytes.
    public static func authenticationCode(
        _ algorithm: Algorithm, key: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer
    ) throws(CryptoError) -> [UInt8] {
        guard let template = algorithm.template, let context = EVP_MAC_CTX_dup(template.context) else {
            throw CryptoError.fromOpenSSL("EVP_MAC_CTX_dup(HMAC)")
        }
        defer { EVP_MAC_CTX_free(context) }
        var output = [UInt8](repeating: 0, count: algorithm.outputLength)
        var length = 0
        // An empty key is legal in HMAC; OpenSSL wants a non-NULL pointer for it.
        let emptyKey: [UInt8] = [0]
        let keyed: Int32 = emptyKey.withUnsafeBytes { empty in
            let keyBase = key.count > 0 ? key.baseAddress : empty.baseAddress
            return EVP_MAC_init(context, keyBase?.assumingMemoryBound(to: UInt8.self), key.count, nil)
        }
        guard keyed == 1 else { throw CryptoError.fromOpenSSL("EVP_MAC_init(HMAC)") }
        if message.count > 0 {
            guard EVP_MAC_update(context, message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count) == 1
            else { throw CryptoError.fromOpenSSL("EVP_MAC_update(HMAC)") }
        }
        let finished = output.withUnsafeMutableBufferPointer { out in
            EVP_MAC_final(context, out.baseAddress, &length, out.count)
        }
        guard finished == 1, length == algorithm.outputLength else {
            throw CryptoError.fromOpenSSL("EVP_MAC_final(HMAC)")
        }
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

/// An `EVP_MAC_CTX` for HMAC with its digest set, made once per algorithm and only ever duplicated.
///
/// `@unchecked Sendable`: after `init` the context is never changed; `EVP_MAC_CTX_dup` only reads it, which
/// OpenSSL allows from several threads at once. It lives as long as the process (a static), so it is never freed.
final class HMACTemplate: @unchecked Sendable {
    let context: OpaquePointer

    static let sha1 = HMACTemplate(digest: "SHA1")
    static let sha256 = HMACTemplate(digest: "SHA256")

    private init?(digest: String) {
        guard let mac = EVP_MAC_fetch(nil, "HMAC", nil) else { return nil }
        defer { EVP_MAC_free(mac) }
        guard let context = EVP_MAC_CTX_new(mac) else { return nil }
        let configured: Int32 = digest.withCString { name in
            "digest".withCString { key in
                var parameters = [
                    OSSL_PARAM_construct_utf8_string(key, UnsafeMutablePointer(mutating: name), 0),
                    OSSL_PARAM_construct_end(),
                ]
                return EVP_MAC_CTX_set_params(context, &parameters)
            }
        }
        guard configured == 1 else {
            EVP_MAC_CTX_free(context)
            return nil
        }
        self.context = context
    }

    deinit {
        EVP_MAC_CTX_free(context)
    }
}
