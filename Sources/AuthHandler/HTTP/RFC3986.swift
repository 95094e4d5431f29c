/// Character classes of RFC 3986 that several encoders share.
public enum RFC3986 {
    /// The unreserved set (§2.3): ALPHA, DIGIT, `-`, `.`, `_`, `~`. OAuth 1.0a's percent-encoding (RFC 5849
    /// §3.6) leaves exactly these as they are, and PKCE verifiers (RFC 7636 §4.1) are made of them.
    public static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default:
            false
        }
    }
}
