/// Percent-encoding (RFC 3986 §2.1) and the character classes of RFC 3986, for every layer that encodes or
/// decodes: form and query values, OAuth 1.0a (RFC 5849 §3.6, the same unreserved set), PKCE verifiers.
package enum RFC3986 {
    /// The unreserved set (§2.3): ALPHA, DIGIT, `-`, `.`, `_`, `~`. OAuth 1.0a's percent-encoding (RFC 5849
    /// §3.6) leaves exactly these as they are, and PKCE verifiers (RFC 7636 §4.1) are made of them.
    ///
    /// A bit test on two 64-bit masks (bytes 0-63 and 64-127), as this runs once per byte when signing.
    @inlinable package static func isUnreserved(_ byte: UInt8) -> Bool {
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
                guard index != bytes.endIndex, let high = Hex.value(bytes[index]) else { return nil }
                bytes.formIndex(after: &index)
                guard index != bytes.endIndex, let low = Hex.value(bytes[index]) else { return nil }
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
}

/// Percent-encoding of every byte but the unreserved ones, with upper-case hex (RFC 3986 §2.1, RFC 5849 §3.6): a
/// space is `%20`, never `+`. Form bodies, query strings and the OAuth 1.0a base string and header all use it.
///
/// The pointer forms write into memory sized in advance (at most `encodedBound` bytes): OAuth 1.0a signs with them
/// through its `ByteWriter`, with no per-byte capacity check on that hot path.
extension RFC3986 {
    /// The most bytes the encoding of `byteCount` bytes can take: each may become `%XX`.
    @inlinable package static func encodedBound(_ byteCount: Int) -> Int {
        byteCount * 3
    }

    /// `text`'s UTF-8 bytes percent-encoded.
    package static func percentEncoded(_ text: String) -> String {
        var text = text
        return text.withUTF8 { bytes in
            String(unsafeUninitializedCapacity: encodedBound(bytes.count)) { buffer in
                guard let start = buffer.baseAddress else { return 0 }
                var output = start
                percentEncode(bytes, at: &output)
                return output - start
            }
        }
    }

    /// Writes the encoding of `bytes` at `output` and moves past it, in one pass: eight bytes are read at once,
    /// and copied at once when all of them are unreserved, the usual case.
    package static func percentEncode(_ bytes: UnsafeBufferPointer<UInt8>, at output: inout UnsafeMutablePointer<UInt8>)
    {
        encodeWordwise(bytes, at: &output, copyingAsIs: allUnreserved, each: percentEncode)
    }

    /// Writes the encoding of `encoded`, text that is itself the output of this encoding, at `output` and moves
    /// past it: it holds only unreserved bytes and `%XX` escapes, so only `%` changes (to `%25`). The OAuth 1.0a
    /// base string encodes the normalised parameters a second time this way (RFC 5849 §3.4.1.1 step 5).
    ///
    /// Eight bytes are read at once, and copied at once when none of them is `%`, the usual case.
    package static func percentEncodeAgain(
        _ encoded: UnsafeBufferPointer<UInt8>, at output: inout UnsafeMutablePointer<UInt8>
    ) {
        encodeWordwise(encoded, at: &output, copyingAsIs: { !hasPercent($0) }, each: encodeAgain)
    }

    /// Writes `byte` itself when unreserved, else `%XX`, at `output` and moves past it.
    package static func percentEncode(_ byte: UInt8, at output: inout UnsafeMutablePointer<UInt8>) {
        if isUnreserved(byte) {
            output.pointee = byte
            output += 1
        } else {
            escape(byte, at: &output)
        }
    }

    /// Writes `bytes` through `each`, which writes at most 3 bytes for one, except that eight bytes read at once
    /// are copied at once when `copyingAsIs` holds for them.
    private static func encodeWordwise(
        _ bytes: UnsafeBufferPointer<UInt8>, at output: inout UnsafeMutablePointer<UInt8>,
        copyingAsIs: (UInt64) -> Bool, each: (UInt8, inout UnsafeMutablePointer<UInt8>) -> Void
    ) {
        guard let input = bytes.baseAddress else { return }
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

    /// True when one of the eight bytes of `word` is `%`: the bytes of `word ^ 0x2525…` that are zero are
    /// the `%`s, and `(x - 0x0101…) & ~x & 0x8080…` is non-zero exactly when some byte of `x` is zero.
    private static func hasPercent(_ word: UInt64) -> Bool {
        let difference = word ^ 0x2525_2525_2525_2525
        return (difference &- 0x0101_0101_0101_0101) & ~difference & 0x8080_8080_8080_8080 != 0
    }

    /// Writes `%25` for `%`, any other byte as it is, at `output` and moves past it.
    private static func encodeAgain(_ byte: UInt8, at output: inout UnsafeMutablePointer<UInt8>) {
        if byte == UInt8(ascii: "%") {
            escape(byte, at: &output)
        } else {
            output.pointee = byte
            output += 1
        }
    }

    /// Writes `%XX` (upper-case hex) for `byte` at `output` and moves past it.
    private static func escape(_ byte: UInt8, at output: inout UnsafeMutablePointer<UInt8>) {
        output[0] = UInt8(ascii: "%")
        output[1] = Hex.digit(byte >> 4, uppercase: true)
        output[2] = Hex.digit(byte & 0x0F, uppercase: true)
        output += 3
    }
}
