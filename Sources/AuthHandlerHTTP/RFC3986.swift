/// Character classes of RFC 3986 that several encoders share.

package enum RFC3986 {
    /// The unreserved set (§2.3): ALPHA, DIGIT, `-`, `.`, `_`, `~`. OAuth 1.0a's percent-encoding (RFC 5849
    /// §3.6) leaves exactly these as they are, and PKCE verifiers (RFC 7636 §4.1) are made of them.
    ///
    /// A bit test on two 64-bit masks (bytes 0-63 and 64-127), as this runs once per byte when signing.
    package static func isUnreserved(_ byte: UInt8) -> Bool {
        // "-" (45), "." (46), "0"..."9" (48-57).
        let below64: UInt64 = 0x03FF_6000_0000_0000
        // "A"..."Z" (65-90), "_" (95), "a"..."z" (97-122), "~" (126), as bits byte - 64.
        let from64: UInt64 = 0x47FF_FFFE_87FF_FFFE
        guard byte < 128 else { return false }
        let mask = byte < 64 ? below64 : from64
        return (mask >> UInt64(byte & 63)) & 1 == 1
    }

    /// Decodes `%XX` escapes (either hex case), and `+` as a space when `plusAsSpace` (form encoding, WHATWG URL
    /// `application/x-www-form-urlencoded`); nil when an escape is truncated or not hex. The bytes are not checked
    /// to be UTF-8: callers that need text validate them.
    package static func percentDecoded(_ bytes: some Collection<UInt8>, plusAsSpace: Bool) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            bytes.formIndex(after: &index)
            switch byte {
            case UInt8(ascii: "%"):
                guard index != bytes.endIndex, let high = hexValue(bytes[index]) else { return nil }
                bytes.formIndex(after: &index)
                guard index != bytes.endIndex, let low = hexValue(bytes[index]) else { return nil }
                bytes.formIndex(after: &index)
                output.append(high << 4 | low)
            case UInt8(ascii: "+") where plusAsSpace:
                output.append(UInt8(ascii: " "))
            default:
                output.append(byte)
            }
        }
        return output
    }

    /// The value of one hex digit (§2.1), either case.
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
