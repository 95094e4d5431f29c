import AuthHandlerSystem

/// Why a query string or `application/x-www-form-urlencoded` body could not be decoded.
package struct FormURLDecodingError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What was wrong, without echoing the input (it may hold secrets).
    package enum Reason: Sendable, Equatable {
        /// A `%` not followed by two hexadecimal digits.
        case invalidPercentEscape
        /// The decoded bytes are not valid UTF-8.
        case invalidUTF8
    }

    package let reason: Reason
    /// Zero-based index of the `&`-separated pair that failed.
    package let pairIndex: Int

    package var description: String {
        switch reason {
        case .invalidPercentEscape:
            "form field #\(pairIndex): '%' must be followed by two hexadecimal digits"
        case .invalidUTF8:
            "form field #\(pairIndex): percent-decoded bytes are not valid UTF-8"
        }
    }
}

/// Decoding and encoding of `name=value&...` pairs (WHATWG URL "application/x-www-form-urlencoded").
package enum FormURLEncoding {
    /// Decodes a query string or form body into ordered fields; `+` is a space, `%XX` a byte.
    ///
    /// Empty pairs (`a=1&&b=2`) are skipped; a pair without `=` has an empty value.
    package static func decode(_ text: String) throws(FormURLDecodingError) -> [URLFormField] {
        var text = text
        return try text.withUTF8 { bytes in Result { () throws(FormURLDecodingError) in try decode(pairsIn: bytes) } }
            .get()
    }

    /// Decodes raw bytes, e.g. a request body, into ordered fields.
    package static func decode(bytes: [UInt8]) throws(FormURLDecodingError) -> [URLFormField] {
        try decode(pairsIn: bytes)
    }

    /// The `&`-separated pairs of `bytes`, read where they lie (no copy of the input, no list of pieces).
    private static func decode(pairsIn bytes: some Collection<UInt8>) throws(FormURLDecodingError) -> [URLFormField] {
        var fields: [URLFormField] = []
        var pairIndex = 0
        var start = bytes.startIndex
        while start != bytes.endIndex {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.endIndex
            if start != end {
                let equals = bytes[start..<end].firstIndex(of: UInt8(ascii: "=")) ?? end
                let valueStart = equals == end ? end : bytes.index(after: equals)
                let name = try decodeComponent(bytes[start..<equals], pairIndex: pairIndex)
                let value = try decodeComponent(bytes[valueStart..<end], pairIndex: pairIndex)
                fields.append(URLFormField(name: name, value: value))
                pairIndex += 1
            }
            start = end == bytes.endIndex ? end : bytes.index(after: end)
        }
        return fields
    }

    /// One form-encoded name or value on its own (as in HTTP Basic credentials, RFC 6749 §2.3.1): `+` a space, `%XX`
    /// a byte; nil when an escape is broken or the bytes are not UTF-8.
    package static func decodeComponent(_ text: some StringProtocol) -> String? {
        try? decodeComponent(text.utf8, pairIndex: 0)
    }

    /// Encodes fields as `name=value&...`, percent-encoding everything but RFC 3986 unreserved characters.
    ///
    /// Spaces become `%20` (not `+`) so the result is equally valid as a query string and a form body.
    package static func encode(_ fields: [URLFormField]) -> String {
        fields.map { percentEncode($0.name) + "=" + percentEncode($0.value) }.joined(separator: "&")
    }

    /// Percent-encodes every byte of the UTF-8 form except `A-Z a-z 0-9 - . _ ~` (`RFC3986.percentEncoded`).
    package static func percentEncode(_ text: String) -> String {
        RFC3986.percentEncoded(text)
    }

    /// One form-encoded name or value decoded. Text without `%` or `+` (the usual case) is taken as it is, and
    /// ASCII text needs no UTF-8 validation, which costs more than this check.
    private static func decodeComponent(_ bytes: some Collection<UInt8>, pairIndex: Int) throws(FormURLDecodingError)
        -> String
    {
        if !bytes.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }),
            bytes.allSatisfy({ $0 < 0x80 })
        {
            return String(decoding: bytes, as: UTF8.self)
        }
        guard let decoded = RFC3986.percentDecoded(bytes, plusAsSpace: true) else {
            throw FormURLDecodingError(reason: .invalidPercentEscape, pairIndex: pairIndex)
        }
        guard let text = String(validating: decoded, as: UTF8.self) else {
            throw FormURLDecodingError(reason: .invalidUTF8, pairIndex: pairIndex)
        }
        return text
    }
}
