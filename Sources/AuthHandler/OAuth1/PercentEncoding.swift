/// The percent-encoding of RFC 5849 §3.6, used for the signature base string and the `Authorization` header.
///
/// Every UTF-8 byte except ALPHA, DIGIT, `-`, `.`, `_` and `~` becomes `%XX` with uppercase hex, so a
/// space is `%20` (never `+`). It works on bytes: no `Character` iteration on this hot path.
public enum OAuth1PercentEncoding {
    /// `string` encoded per RFC 5849 §3.6.
    public static func encode(_ string: String) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(string.utf8.count)
        append(encoding: string, to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// Appends the RFC 5849 §3.6 encoding of `string`'s UTF-8 bytes to `output`.
    public static func append(encoding string: String, to output: inout [UInt8]) {
        let done: Void? = string.utf8.withContiguousStorageIfAvailable { append(encoding: $0, to: &output) }
        if done == nil { append(encoding: string.utf8, to: &output) }
    }

    /// Appends the RFC 5849 §3.6 encoding of `bytes` to `output`.
    public static func append(encoding bytes: some Sequence<UInt8>, to output: inout [UInt8]) {
        for byte in bytes {
            if RFC3986.isUnreserved(byte) {
                output.append(byte)
            } else {
                output.append(UInt8(ascii: "%"))
                output.append(hexDigit(byte >> 4))
                output.append(hexDigit(byte & 0x0F))
            }
        }
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
        var fields: [URLFormField] = []
        for piece in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = piece.firstIndex(of: UInt8(ascii: "="))
            let nameBytes = piece[piece.startIndex..<(equals ?? piece.endIndex)]
            let valueBytes = equals.map { piece[piece.index(after: $0)...] } ?? piece[piece.endIndex...]
            guard let name = decode(nameBytes, plusAsSpace: true), let value = decode(valueBytes, plusAsSpace: true)
            else { return nil }
            fields.append(URLFormField(name: name, value: value))
        }
        return fields
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") + nibble - 10
    }
}
