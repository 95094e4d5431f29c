import COpenSSL

/// Cryptographically secure random bytes from OpenSSL's `RAND_bytes`.
public enum SecureRandom {
    /// `count` random bytes; throws if the generator is not seeded (never silently weak).
    public static func bytes(_ count: Int) throws(CryptoError) -> [UInt8] {
        guard count >= 0 else { throw CryptoError(operation: "RAND_bytes", detail: "cannot draw \(count) bytes") }
        var output = [UInt8](repeating: 0, count: count)
        let filled = output.withUnsafeMutableBytes { buffer in Result { () throws(CryptoError) in try fill(buffer) } }
        try filled.get()
        return output
    }

    /// `count` random bytes as base64url without padding (e.g. 32 bytes → 43 characters).
    ///
    /// The bytes are drawn into a stack buffer, wiped after encoding; only the string is allocated.
    public static func base64URLString(byteCount count: Int) throws(CryptoError) -> String {
        guard (0...256).contains(count) else { return Base64.urlEncode(try bytes(count)) }
        let drawn = withUnsafeTemporaryAllocation(byteCount: max(count, 1), alignment: 1) { buffer in
            defer { OPENSSL_cleanse(buffer.baseAddress, buffer.count) }
            let bytes = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count])
            return Result { () throws(CryptoError) in
                try fill(bytes)
                return Base64.encode(UnsafeRawBufferPointer(bytes), alphabet: Base64.urlAlphabet, padded: false)
            }
        }
        return try drawn.get()
    }

    /// Fills `buffer` from the CSPRNG; throws if the generator is not seeded (never silently weak).
    private static func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(CryptoError) {
        guard buffer.count <= Int(Int32.max) else {
            throw CryptoError(operation: "RAND_bytes", detail: "cannot draw \(buffer.count) bytes")
        }
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        guard RAND_bytes(base.assumingMemoryBound(to: UInt8.self), Int32(buffer.count)) == 1 else {
            throw CryptoError.fromOpenSSL("RAND_bytes")
        }
    }
}
