import COpenSSL
import Foundation

/// Keyed-hash message authentication codes (RFC 2104), computed from OpenSSL 3's EVP digest API.
///
/// Why not `HMAC()` or `EVP_MAC`: in OpenSSL 3.0 the one-shot `HMAC()` fetches the MAC and the digest by
/// name on every call, and keying an `EVP_MAC` context (needed anew for each OAuth 1.0a signature, whose
/// key holds the token secret) sets up three digest contexts and parses parameter lists. RFC 2104 itself
/// is two hash passes, so it is done here with one `EVP_MD_CTX` on a digest fetched once per algorithm:
/// `H(K ^ opad || H(K ^ ipad || message))`, about half the instructions of the `EVP_MAC` path.
package enum HMAC {
    /// The hash functions OAuth 1.0a and our webhook signatures use.
    package enum Algorithm: Sendable {
        case sha1
        case sha256

        /// Length of the MAC in bytes.
        package var outputLength: Int {
            switch self {
            case .sha1: 20
            case .sha256: 32
            }
        }

        /// The hash's block size B of RFC 2104 §2 (64 bytes for both).
        var blockLength: Int { 64 }

        /// The digest fetched once; nil if this OpenSSL has no such digest.
        fileprivate var digest: FetchedAlgorithm? {
            switch self {
            case .sha1: FetchedAlgorithm.sha1
            case .sha256: FetchedAlgorithm.sha256
            }
        }

        fileprivate var name: String {
            switch self {
            case .sha1: "HMAC-SHA1"
            case .sha256: "HMAC-SHA256"
            }
        }
    }

    /// The MAC of `message` under `key`, working directly on the caller's bytes.
    package static func authenticationCode(
        _ algorithm: Algorithm, key: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer
    ) throws(CryptoError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: algorithm.outputLength)
        let computed = output.withUnsafeMutableBytes { output in
            Result { () throws(CryptoError) in
                try authenticationCode(algorithm, key: key, message: message, into: output)
            }
        }
        try computed.get()
        return output
    }

    /// Writes the MAC of `message` under `key` to the start of `output`, which has room for
    /// `algorithm.outputLength` bytes: for a caller that keeps the MAC in temporary memory.
    package static func authenticationCode(
        _ algorithm: Algorithm, key: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer,
        into output: UnsafeMutableRawBufferPointer
    ) throws(CryptoError) {
        assert(output.count >= algorithm.outputLength, "HMAC output buffer too small")
        guard let digest = algorithm.digest?.pointer, let context = EVP_MD_CTX_new() else {
            throw CryptoError.fromOpenSSL("EVP_MD_CTX_new(\(algorithm.name))")
        }
        defer { EVP_MD_CTX_free(context) }
        let computed = withUnsafeTemporaryAllocation(byteCount: algorithm.blockLength, alignment: 16) { pad in
            defer { OPENSSL_cleanse(pad.baseAddress, pad.count) }
            let hasher = Hasher(context: context, digest: digest)
            return hasher.hmac(key: key, message: message, pad: pad, output: output)
        }
        guard computed else { throw CryptoError.fromOpenSSL("EVP_Digest(\(algorithm.name))") }
    }

    /// The hash passes of RFC 2104 on one reusable digest context.
    private struct Hasher {
        let context: OpaquePointer
        let digest: OpaquePointer

        /// Writes the MAC to `output` (the digest's length), using `pad` (one block) for the padded key.
        func hmac(
            key: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer, pad: UnsafeMutableRawBufferPointer,
            output: UnsafeMutableRawBufferPointer
        ) -> Bool {
            // §2 step 1: K zero-padded to B bytes, or H(K) zero-padded when K is longer than B.
            pad.initializeMemory(as: UInt8.self, repeating: 0)
            if key.count > pad.count {
                guard hash(key, into: pad) else { return false }
            } else if key.count > 0 {
                pad.copyMemory(from: key)
            }
            // Steps 2-4: the inner hash H(K ^ ipad || message), kept in `output` until the outer one.
            xor(pad, with: 0x36)
            guard hash(UnsafeRawBufferPointer(pad), message, into: output) else { return false }
            // Steps 5-7: H(K ^ opad || inner).
            xor(pad, with: 0x36 ^ 0x5C)
            return hash(UnsafeRawBufferPointer(pad), UnsafeRawBufferPointer(output), into: output)
        }

        /// The digest of `first` then `second`, written to the start of `output`.
        private func hash(
            _ first: UnsafeRawBufferPointer,
            _ second: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0),
            into output: UnsafeMutableRawBufferPointer
        ) -> Bool {
            var length: UInt32 = 0
            return EVP_DigestInit_ex2(context, digest, nil) == 1
                && EVP_DigestUpdate(context, first.baseAddress, first.count) == 1
                && (second.isEmpty || EVP_DigestUpdate(context, second.baseAddress, second.count) == 1)
                && EVP_DigestFinal_ex(context, output.baseAddress?.assumingMemoryBound(to: UInt8.self), &length) == 1
        }

        private func xor(_ bytes: UnsafeMutableRawBufferPointer, with value: UInt8) {
            for index in bytes.indices { bytes[index] ^= value }
        }
    }

    /// Base64 (RFC 4648 §4, padded) of the MAC of `message` under `key`, the MAC kept in temporary memory rather than
    /// an array: OAuth 1.0a's `oauth_signature` (RFC 5849 §3.4.2, §3.4.3) is made this way for every request.
    package static func base64AuthenticationCode(
        _ algorithm: Algorithm, key: UnsafeRawBufferPointer, message: [UInt8]
    ) throws(CryptoError) -> String {
        let encoded = withUnsafeTemporaryAllocation(byteCount: algorithm.outputLength, alignment: 1) { mac in
            message.withUnsafeBytes { message in
                Result { () throws(CryptoError) in
                    try authenticationCode(algorithm, key: key, message: message, into: mac)
                    return Base64.encode(UnsafeRawBufferPointer(mac), alphabet: Base64.standardAlphabet, padded: true)
                }
            }
        }
        return try encoded.get()
    }

    /// The MAC of `message` under `key`.
    package static func authenticationCode(
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
    package static func sha1(key: some ContiguousBytes, message: some ContiguousBytes) throws(CryptoError) -> [UInt8] {
        try authenticationCode(.sha1, key: key, message: message)
    }

    /// HMAC-SHA256.
    package static func sha256(key: some ContiguousBytes, message: some ContiguousBytes) throws(CryptoError) -> [UInt8]
    {
        try authenticationCode(.sha256, key: key, message: message)
    }
}
