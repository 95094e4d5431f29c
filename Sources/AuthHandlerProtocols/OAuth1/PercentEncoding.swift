/// The percent-encoding of RFC 5849 §3.6, used for the signature base string and the `Authorization` header: that
/// of RFC 3986 (`RFC3986.percentEncoded`), with every byte but the unreserved ones as `%XX` in upper-case hex, so a
/// space is `%20` (never `+`). The signer writes it through `ByteWriter` into memory sized in advance.
import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerSystem

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

extension ByteWriter {
    /// Appends the RFC 5849 §3.6 encoding of `string`'s UTF-8 bytes.
    mutating func write(percentEncoding string: String) {
        let done: Void? = string.utf8.withContiguousStorageIfAvailable { write(percentEncoding: $0) }
        if done == nil {
            var copy = string
            copy.withUTF8 { write(percentEncoding: $0) }
        }
    }

    /// Appends the RFC 5849 §3.6 encoding of `bytes` in one pass through a pointer into the output, which
    /// has room for the worst case (every byte escaped): no per-byte capacity check, no per-run copy call.
    mutating func write(percentEncoding bytes: UnsafeBufferPointer<UInt8>) {
        writeThroughPointer(atMost: RFC3986.encodedBound(bytes.count)) { RFC3986.percentEncode(bytes, at: &$0) }
    }

    /// Appends the RFC 5849 §3.6 encoding of `encoded`, text that is itself the output of that encoding: only
    /// `%` changes (to `%25`). The base string encodes the normalised parameters a second time this way
    /// (§3.4.1.1 step 5).
    mutating func write(reencoding encoded: UnsafeBufferPointer<UInt8>) {
        writeThroughPointer(atMost: RFC3986.encodedBound(encoded.count)) {
            RFC3986.percentEncodeAgain(encoded, at: &$0)
        }
    }

    /// Appends the RFC 5849 §3.6 encoding of one byte: itself when unreserved, else `%XX`.
    mutating func write(percentEncoding byte: UInt8) {
        writeThroughPointer(atMost: 3) { RFC3986.percentEncode(byte, at: &$0) }
    }
}
