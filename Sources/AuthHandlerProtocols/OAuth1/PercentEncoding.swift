import AuthHandlerCrypto
import AuthHandlerHTTP

/// The percent-encoding of RFC 5849 §3.6, used for the signature base string and the `Authorization` header.
///
/// Every UTF-8 byte except ALPHA, DIGIT, `-`, `.`, `_` and `~` becomes `%XX` with uppercase hex, so a
/// space is `%20` (never `+`). It works on bytes written into memory sized in advance (`ByteWriter`):
/// no `Character` iteration and no per-byte array growth on this hot path.
package enum OAuth1PercentEncoding {
    /// The most bytes the encoding of `byteCount` bytes can take: each may become `%XX`.
    static func encodedBound(_ byteCount: Int) -> Int {
        byteCount * 3
    }

    /// `string` encoded per RFC 5849 §3.6.
    package static func encode(_ string: String) -> String {
        ByteWriter.string(capacity: encodedBound(string.utf8.count)) { $0.write(percentEncoding: string) }
    }

    /// Decodes `%XX` escapes (either hex case) into UTF-8 text; `+` stays `+`, as §3.6 never produces it.
    /// `parameter` names the value in the error.
    package static func decode(_ string: String, parameter: String = "value") throws(OAuth1Error) -> String {
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
    /// ASCII text (the usual case) needs no UTF-8 validation, which costs more than this check.
    private static func formDecoded(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard bytes.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else {
            if bytes.allSatisfy({ $0 < 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
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

    /// Appends the RFC 5849 §3.6 encoding of `bytes` in one pass through a pointer into the output, which
    /// has room for the worst case (every byte escaped): no per-byte capacity check, no per-run copy call.
    ///
    /// Eight bytes are read at once, and copied at once when all of them are unreserved, the usual case.
    mutating func write(percentEncoding bytes: UnsafeBufferPointer<UInt8>) {
        writeWordwise(bytes, copyingAsIs: Self.allUnreserved, each: Self.encode)
    }

    /// True when all eight bytes of `word` are unreserved (ALPHA, DIGIT, `-`, `.`, `_`, `~`), tested on the
    /// whole word. For ASCII bytes `x`, `(0x7F + upper - x) & (x + 0x7F - lower)` has a byte's top bit set
    /// exactly when `lower < x < upper`, and no byte borrows from or carries into its neighbour.
    private static func allUnreserved(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let tops: UInt64 = 0x8080_8080_8080_8080
        guard word & tops == 0 else { return false }
        func between(_ lower: UInt64, _ upper: UInt64) -> UInt64 {
            ((0x7F + upper) &* ones &- word) & (word &+ (0x7F - lower) &* ones)
        }
        let hyphenOrDot = between(0x2C, 0x2F)
        let digit = between(0x2F, 0x3A)
        let upperCase = between(0x40, 0x5B)
        let underscore = between(0x5E, 0x60)
        let lowerCase = between(0x60, 0x7B)
        let tilde = between(0x7D, 0x7F)
        return (hyphenOrDot | digit | upperCase | underscore | lowerCase | tilde) & tops == tops
    }

    /// Appends the RFC 5849 §3.6 encoding of `encoded`, text that is itself the output of that encoding:
    /// it holds only unreserved bytes and `%XX` escapes, so only `%` changes (to `%25`). The base string
    /// encodes the normalised parameters a second time this way (§3.4.1.1 step 5).
    ///
    /// Eight bytes are read at once, and copied at once when none of them is `%`, the usual case.
    mutating func write(reencoding encoded: UnsafeBufferPointer<UInt8>) {
        writeWordwise(encoded, copyingAsIs: { !Self.hasPercent($0) }, each: Self.reencode)
    }

    /// Writes `bytes` through `each`, which writes at most 3 bytes for one, except that eight bytes read at
    /// once are copied at once when `copyingAsIs` holds for them.
    private mutating func writeWordwise(
        _ bytes: UnsafeBufferPointer<UInt8>, copyingAsIs: (UInt64) -> Bool,
        each: (UInt8, inout UnsafeMutablePointer<UInt8>) -> Void
    ) {
        guard let input = bytes.baseAddress else { return }
        writeThroughPointer(atMost: OAuth1PercentEncoding.encodedBound(bytes.count)) { output in
            var index = 0
            while index + 8 <= bytes.count {
                let word = UnsafeRawPointer(input + index).loadUnaligned(as: UInt64.self)
                if copyingAsIs(word) {
                    UnsafeMutableRawPointer(output).storeBytes(of: word, as: UInt64.self)
                    output += 8
                } else {
                    for byte in UnsafeBufferPointer(start: input + index, count: 8) { each(byte, &output) }
                }
                index += 8
            }
            for byte in UnsafeBufferPointer(rebasing: bytes[index...]) { each(byte, &output) }
        }
    }

    /// True when one of the eight bytes of `word` is `%`: the bytes of `word ^ 0x2525…` that are zero are
    /// the `%`s, and `(x - 0x0101…) & ~x & 0x8080…` is non-zero exactly when some byte of `x` is zero.
    private static func hasPercent(_ word: UInt64) -> Bool {
        let difference = word ^ 0x2525_2525_2525_2525
        return (difference &- 0x0101_0101_0101_0101) & ~difference & 0x8080_8080_8080_8080 != 0
    }

    /// Writes `%25` for `%`, any other byte as it is, at `output` and moves past it.
    private static func reencode(_ byte: UInt8, at output: inout UnsafeMutablePointer<UInt8>) {
        if byte == UInt8(ascii: "%") {
            escape(byte, at: &output)
        } else {
            output.pointee = byte
            output += 1
        }
    }

    /// Writes `%XX` (uppercase hex) for `byte` at `output` and moves past it.
    private static func escape(_ byte: UInt8, at output: inout UnsafeMutablePointer<UInt8>) {
        let digits: StaticString = "0123456789ABCDEF"
        output[0] = UInt8(ascii: "%")
        output[1] = digits.utf8Start[Int(byte >> 4)]
        output[2] = digits.utf8Start[Int(byte & 0x0F)]
        output += 3
    }

    /// Appends the RFC 5849 §3.6 encoding of one byte: itself when unreserved, else `%XX`.
    mutating func write(percentEncoding byte: UInt8) {
        writeThroughPointer(atMost: 3) { Self.encode(byte, at: &$0) }
    }

    /// Writes `byte` itself when unreserved, else `%XX`, at `output` and moves past it.
    private static func encode(_ byte: UInt8, at output: inout UnsafeMutablePointer<UInt8>) {
        if RFC3986.isUnreserved(byte) {
            output.pointee = byte
            output += 1
        } else {
            escape(byte, at: &output)
        }
    }
}
