import AuthHandlerSystem

/// The percent-encoding of RFC 5849 §3.6, used for the signature base string and the `Authorization` header: that
/// of RFC 3986 (`RFC3986.percentEncoded`), with every byte but the unreserved ones as `%XX` in upper-case hex, so a
/// space is `%20` (never `+`). The signer writes it through `ByteWriter` into memory sized in advance.
package enum OAuth1PercentEncoding {
    /// Decodes `%XX` escapes (either hex case) into UTF-8 text; `+` stays `+`, as §3.6 never produces it.
    /// `parameter` names the value in the error.
    package static func decode(_ string: String, parameter: String = "value") throws(OAuth1Error) -> String {
        guard let decoded = decode(string.utf8) else {
            throw .invalidPercentEncoding(parameter: parameter)
        }
        return decoded
    }

    /// Decodes `%XX` escapes (`+` stays `+`); nil when an escape is truncated or not hex, or the result is not UTF-8.
    static func decode(_ bytes: some Collection<UInt8>) -> String? {
        RFC3986.percentDecoded(bytes, plusAsSpace: false).flatMap { String(validating: $0, as: UTF8.self) }
    }
}
