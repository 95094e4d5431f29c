import COpenSSL

/// Cryptographically secure random bytes from OpenSSL's `RAND_bytes`.
public enum SecureRandom {
    /// `count` random bytes; throws if the generator is not seeded (never silently weak).
    public static func bytes(_ count: Int) throws(CryptoError) -> [UInt8] {
        guard count >= 0, count <= Int(Int32.max) else {
            throw CryptoError(operation: "RAND_bytes", detail: "cannot draw \(count) bytes")
        }
        var output = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return output }
        let ok = output.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(count)) }
        guard ok == 1 else { throw CryptoError.fromOpenSSL("RAND_bytes") }
        return output
    }

    /// `count` random bytes as base64url without padding (e.g. 32 bytes → 43 characters).
    public static func base64URLString(byteCount count: Int) throws(CryptoError) -> String {
        Base64.urlEncode(try bytes(count))
    }
}
