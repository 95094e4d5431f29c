import AuthHandlerHTTP
import AuthHandlerSystem

/// The `Authorization: OAuth ...` header of RFC 5849 §3.5.1, built by clients and parsed by servers.
///
/// Parameters are held decoded, in order, without `realm`, which is kept apart because it is never
/// signed (§3.4.1.3.1) and is an RFC 2617 quoted string rather than a percent-encoded value.
package struct OAuth1AuthorizationHeader: Sendable, Hashable {
    /// The optional protection realm, unescaped.
    package var realm: String?
    /// The decoded parameters other than `realm`, in header order.
    package var parameters: [URLFormField]

    /// More parameters than any OAuth 1.0a header needs; refusing them bounds the duplicate check.
    static let maximumParameterCount = 64

    package init(realm: String? = nil, parameters: [URLFormField]) {
        self.realm = realm
        self.parameters = parameters
    }

    /// Parses a header field value such as `OAuth realm="Photos", oauth_consumer_key="dpf43f3p2l4k3l03", ...`.
    ///
    /// The scheme name is case-insensitive; parameters are `name="value"` (or an RFC 7235 token value)
    /// separated by commas with optional whitespace. Names and values are percent-decoded (§3.6), the
    /// realm is only unquoted. A repeated parameter is refused (§3.1 step 2, §3.2).
    package init(parsing headerValue: String) throws(OAuth1Error) {
        self = try Self.parse(Array(headerValue.utf8))
    }

    /// The header field value: `OAuth ` then `realm` if any, then each `enc(name)="enc(value)"`, comma-separated.
    package var value: String {
        ByteWriter.string(capacity: valueBound) { output in
            output.write("OAuth ")
            if let realm {
                output.write("realm=\"")
                for byte in realm.utf8 {
                    if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { output.write(UInt8(ascii: "\\")) }
                    output.write(byte)
                }
                output.write(UInt8(ascii: "\""))
            }
            for (position, field) in parameters.enumerated() {
                if position > 0 || realm != nil { output.write(", ") }
                output.write(percentEncoding: field.name)
                output.write("=\"")
                output.write(percentEncoding: field.value)
                output.write(UInt8(ascii: "\""))
            }
        }
    }

    /// The most bytes `value` takes: the realm escaped, each parameter encoded, and the punctuation.
    private var valueBound: Int {
        let realmBound = realm.map { 2 * $0.utf8.count + 10 } ?? 0
        return parameters.reduce(6 + realmBound) {
            $0 + RFC3986.encodedBound($1.name.utf8.count + $1.value.utf8.count) + 5
        }
    }

    /// The value of the parameter `name`, or nil.
    package func parameter(_ name: String) -> String? {
        parameters.first(named: name)
    }

    /// `oauth_consumer_key`: which consumer secret to look up.
    package var consumerKey: String? { parameter("oauth_consumer_key") }
    /// `oauth_token`: which token secret to look up; nil for a temporary-credential request.
    package var token: String? { parameter("oauth_token") }
    /// `oauth_signature_method` as sent.
    package var signatureMethodName: String? { parameter("oauth_signature_method") }
    /// `oauth_signature`, decoded.
    package var signature: String? { parameter("oauth_signature") }
    /// `oauth_nonce`, for the replay check.
    package var nonce: String? { parameter("oauth_nonce") }
    /// `oauth_callback` (temporary-credential request).
    package var callback: String? { parameter("oauth_callback") }
    /// `oauth_verifier` (token request).
    package var verifier: String? { parameter("oauth_verifier") }
    /// `oauth_version`, which must be `1.0` when present.
    package var version: String? { parameter("oauth_version") }

    /// `oauth_timestamp` as seconds since the epoch; nil when absent or not a positive integer (§3.3).
    package var timestamp: Int64? {
        guard let text = parameter("oauth_timestamp"), !text.utf8.isEmpty, text.utf8.count <= 18 else { return nil }
        var seconds: Int64 = 0
        for byte in text.utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            seconds = seconds * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        return seconds > 0 ? seconds : nil
    }

    private static func parse(_ bytes: [UInt8]) throws(OAuth1Error) -> OAuth1AuthorizationHeader {
        var index = try afterScheme(bytes)
        var realm: String?
        var parameters: [URLFormField] = []
        var rawValue: [UInt8] = []
        while true {
            while index < bytes.count, isWhitespace(bytes[index]) || bytes[index] == UInt8(ascii: ",") { index += 1 }
            if index == bytes.count { break }

            let nameStart = index
            while index < bytes.count, isTokenCharacter(bytes[index]) { index += 1 }
            guard index > nameStart else {
                throw .malformedAuthorizationHeader("expected a parameter name at byte \(nameStart)")
            }
            let rawName = bytes[nameStart..<index]
            var printableName: String { String(decoding: rawName, as: UTF8.self) }
            index = skipWhitespace(bytes, from: index)
            guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else {
                throw .malformedAuthorizationHeader("\(printableName) has no =")
            }
            index = skipWhitespace(bytes, from: index + 1)
            rawValue.removeAll(keepingCapacity: true)
            try readValue(bytes, at: &index, into: &rawValue, of: rawName)
            index = skipWhitespace(bytes, from: index)
            guard index == bytes.count || bytes[index] == UInt8(ascii: ",") else {
                throw .malformedAuthorizationHeader("expected a comma after the value of \(printableName)")
            }
            try record(rawName, rawValue, realm: &realm, parameters: &parameters)
        }
        return OAuth1AuthorizationHeader(realm: realm, parameters: parameters)
    }

    /// The index after the `OAuth` auth-scheme (case-insensitive) that must open the field (RFC 5849 §3.5.1).
    private static func afterScheme(_ bytes: [UInt8]) throws(OAuth1Error) -> Int {
        var index = skipWhitespace(bytes, from: 0)
        let scheme = "oauth".utf8
        guard bytes.count - index >= scheme.count,
            zip(bytes[index..<(index + scheme.count)], scheme).allSatisfy({ lowercased($0) == $1 })
        else { throw .notOAuthScheme }
        index += scheme.count
        guard index == bytes.count || isWhitespace(bytes[index]) else { throw .notOAuthScheme }
        return index
    }

    /// Reads a parameter's value at `index`, a quoted-string (backslash escapes removed) or a token, into `rawValue`.
    private static func readValue(
        _ bytes: [UInt8], at index: inout Int, into rawValue: inout [UInt8],
        of rawName: ArraySlice<UInt8>
    ) throws(OAuth1Error) {
        var printableName: String { String(decoding: rawName, as: UTF8.self) }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
            let valueStart = index
            while index < bytes.count, isTokenCharacter(bytes[index]) { index += 1 }
            guard index > valueStart else {
                throw .malformedAuthorizationHeader("\(printableName) has no value")
            }
            rawValue.append(contentsOf: bytes[valueStart..<index])
            return
        }
        index += 1
        while index < bytes.count {
            var byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "\"") { return }
            if byte == UInt8(ascii: "\\") {
                guard index < bytes.count else { break }
                byte = bytes[index]
                index += 1
            }
            guard byte >= 0x20 || byte == UInt8(ascii: "\t"), byte != 0x7F else {
                throw .malformedAuthorizationHeader("the value of \(printableName) contains a control character")
            }
            rawValue.append(byte)
        }
        throw .malformedAuthorizationHeader("the value of \(printableName) has no closing quote")
    }

    /// Records one parameter: the realm, or a protocol parameter percent-decoded, each at most once.
    private static func record(
        _ rawName: ArraySlice<UInt8>, _ rawValue: [UInt8], realm: inout String?,
        parameters: inout [URLFormField]
    ) throws(OAuth1Error) {
        var printableName: String { String(decoding: rawName, as: UTF8.self) }
        if rawName.count == 5, zip(rawName, "realm".utf8).allSatisfy({ lowercased($0) == $1 }) {
            guard realm == nil else { throw .duplicateProtocolParameter("realm") }
            guard let text = String(validating: rawValue, as: UTF8.self) else {
                throw .malformedAuthorizationHeader("the realm is not UTF-8")
            }
            realm = text
            return
        }
        guard let name = OAuth1PercentEncoding.decode(rawName) else {
            throw .invalidPercentEncoding(parameter: printableName)
        }
        guard let value = OAuth1PercentEncoding.decode(rawValue) else {
            throw .invalidPercentEncoding(parameter: name)
        }
        guard !parameters.contains(where: { $0.name == name }) else { throw .duplicateProtocolParameter(name) }
        guard parameters.count < maximumParameterCount else {
            throw .malformedAuthorizationHeader("more than \(maximumParameterCount) parameters")
        }
        parameters.append(URLFormField(name: name, value: value))
    }

    private static func skipWhitespace(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start
        while index < bytes.count, isWhitespace(bytes[index]) { index += 1 }
        return index
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }

    /// RFC 7230 §3.2.6 `tchar`.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 0x20 : byte
    }
}
