/// The percent-encoding of RFC 5849 §3.6, used for the signature base string and the `Authorization` header.
///
/// Every UTF-8 byte except ALPHA, DIGIT, `-`, `.`, `_` and `~` becomes `%XX` with uppercase hex, so a
/// space is `%20` (never `+`). It works on bytes written into memory sized in advance (`ByteWriter`):
/// no `Character` iteration and no per-byte array growth on this hot path.
public enum OAuth1PercentEncoding {
    /// The most bytes the encoding of `byteCount` bytes can take: each may become `%XX`.
    static func encodedBound(_ byteCount: Int) -> Int {
        byteCount * 3
    }

    /// `string` encoded per RFC 5849 §3.6.
    public static func encode(_ string: String) -> String {
        ByteWriter.string(capacity: encodedBound(string.utf8.count)) { $0.write(percentEncoding: string) }
    }

    /// Decodes `%XX` escapes (either hex case) into UTF-8 text; `+` stays `+`, as §3.6 never produces it.
    /// `parameter` names the value in the error.
    public static func decode(_ string: String, parameter: String = "value") throws(OAuth1Error) -> String {
        guard let decoded = decode(string.utf8, plusAsSpace: false) else {
            throw .invalidPercentEncoding(parameter: parameter)
        }
        return decoded
    }

    /// Decodes percent-escapes (and `+` as space when `plusAsSpace`, for form encoding); nil when an
    /// escape is truncated or not hex, or the result is not UTF-8.
    static func decode(_ bytes: some Collection<UInt8>, plusAsSpace: Bool) -> String? {
        RFC3986.percentDecoded(bytes, plusAsSpace: plusAsSpace).flatMap { String(validating: $0, as: UTF8.self) }
    }

    /// Splits an `application/x-www-form-urlencoded` string (a URL query) into decoded fields, in order;
    /// nil when an escape is invalid. Empty pieces (`a&&b`) are skipped; `c` alone is `c` with an empty value.
    static func formFields(_ bytes: some Collection<UInt8>) -> [URLFormField]? {
        if let fields = bytes.withContiguousStorageIfAvailable(formFields(in:)) { return fields }
        return Array(bytes).withUnsafeBufferPointer(formFields(in:))
    }

    private static func formFields(in bytes: UnsafeBufferPointer<UInt8>) -> [URLFormField]? {
        var fields: [URLFormField] = []
        var pieceStart = 0
        while pieceStart < bytes.count {
            let pieceEnd = bytes[pieceStart...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.count
            if pieceEnd > pieceStart {
                let equals = bytes[pieceStart..<pieceEnd].firstIndex(of: UInt8(ascii: "=")) ?? pieceEnd
                let valueStart = min(equals + 1, pieceEnd)
                guard let name = formDecoded(UnsafeBufferPointer(rebasing: bytes[pieceStart..<equals])),
                    let value = formDecoded(UnsafeBufferPointer(rebasing: bytes[valueStart..<pieceEnd]))
                else { return nil }
                fields.append(URLFormField(name: name, value: value))
            }
            pieceStart = pieceEnd + 1
        }
        return fields
    }

    /// One form-encoded name or value decoded; text without `%` or `+` (the usual case) is taken as it is.
    private static func formDecoded(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard bytes.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else {
            return String(validating: bytes, as: UTF8.self)
        }
        return decode(bytes, plusAsSpace: true)
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

    /// Appends the RFC 5849 §3.6 encoding of `bytes`: each run of unreserved bytes is copied at once,
    /// each other byte escaped.
    mutating func write(percentEncoding bytes: UnsafeBufferPointer<UInt8>) {
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count, RFC3986.isUnreserved(bytes[end]) { end += 1 }
            write(UnsafeBufferPointer(rebasing: bytes[start..<end]))
            if end < bytes.count { write(percentEncoding: bytes[end]) }
            start = end + 1
        }
    }

    /// Appends the RFC 5849 §3.6 encoding of `encoded`, text that is itself the output of that encoding:
    /// it holds only unreserved bytes and `%XX` escapes, so only `%` changes (to `%25`). The base string
    /// encodes the normalised parameters a second time this way (§3.4.1.1 step 5).
    mutating func write(reencoding encoded: UnsafeBufferPointer<UInt8>) {
        var start = 0
        while start < encoded.count {
            let end = encoded[start...].firstIndex(of: UInt8(ascii: "%")) ?? encoded.count
            write(UnsafeBufferPointer(rebasing: encoded[start..<end]))
            if end < encoded.count { write("%25") }
            start = end + 1
        }
    }

    /// Appends the RFC 5849 §3.6 encoding of one byte: itself when unreserved, else `%XX`.
    mutating func write(percentEncoding byte: UInt8) {
        if RFC3986.isUnreserved(byte) {
            write(byte)
        } else {
            write(UInt8(ascii: "%"))
            write(Self.hexDigit(byte >> 4))
            write(Self.hexDigit(byte & 0x0F))
        }
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") + nibble - 10
    }
}
