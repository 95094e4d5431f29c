import COpenSSL

/// Converts ECDSA signatures between OpenSSL's DER `ECDSA-Sig-Value` and JOSE's fixed-width `r || s`.
///
/// RFC 7518 §3.4: the JWS signature is `r` then `s`, each exactly the curve's coordinate length
/// (32 octets for P-256), big-endian, leading zeros kept.
enum ECDSASignatureEncoding {
    /// The JOSE form of a DER signature produced by OpenSSL.
    static func raw(fromDER der: [UInt8], coordinateLength: Int) throws(CryptoError) -> [UInt8] {
        guard der.count < Int(Int32.max) else {
            throw CryptoError(operation: "d2i_ECDSA_SIG", detail: "input too large")
        }
        var raw = [UInt8](repeating: 0, count: 2 * coordinateLength)
        let ok: Bool = der.withUnsafeBufferPointer { der in
            var cursor = der.baseAddress
            guard let signature = d2i_ECDSA_SIG(nil, &cursor, der.count) else { return false }
            defer { ECDSA_SIG_free(signature) }
            guard let cursor, let base = der.baseAddress, cursor - base == der.count else { return false }
            var r: OpaquePointer?
            var s: OpaquePointer?
            ECDSA_SIG_get0(signature, &r, &s)
            guard let r, let s else { return false }
            return raw.withUnsafeMutableBufferPointer { out in
                guard let base = out.baseAddress else { return false }
                return BN_bn2binpad(r, base, Int32(coordinateLength)) == coordinateLength
                    && BN_bn2binpad(s, base + coordinateLength, Int32(coordinateLength)) == coordinateLength
            }
        }
        guard ok else { throw CryptoError.fromOpenSSL("ECDSA signature DER to r||s") }
        return raw
    }

    /// The DER form of a JOSE signature, or nil when it is not exactly `2 * coordinateLength` bytes.
    static func der(fromRaw raw: [UInt8], coordinateLength: Int) -> [UInt8]? {
        guard raw.count == 2 * coordinateLength, coordinateLength > 0 else { return nil }
        guard let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let (r, s): (OpaquePointer?, OpaquePointer?) = raw.withUnsafeBufferPointer { raw in
            guard let base = raw.baseAddress else { return (nil, nil) }
            let length = Int32(coordinateLength)
            return (BN_bin2bn(base, length, nil), BN_bin2bn(base + coordinateLength, length, nil))
        }
        // ECDSA_SIG_set0 takes ownership of r and s only when it succeeds.
        guard let r, let s, ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        guard written == length else { return nil }
        return der
    }
}
