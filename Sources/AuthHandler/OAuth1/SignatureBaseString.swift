import Foundation

/// The signature base string of RFC 5849 §3.4.1.1: `METHOD&enc(base string URI)&enc(normalised parameters)`.
///
/// Built on UTF-8 bytes in one buffer: each parameter is encoded once, sorted by ranges into that
/// buffer, and written out encoded a second time without building the normalised string in between.
public struct SignatureBaseString: Sendable, Hashable, CustomStringConvertible {
    /// The base string's bytes, the HMAC message.
    public let bytes: [UInt8]

    /// Builds the base string from the HTTP method, the base string URI and the decoded request
    /// parameters: query, form body (when `application/x-www-form-urlencoded`) and protocol parameters
    /// (without `realm`), given as one or more lists. Any `oauth_signature` is left out (§3.4.1.3.1);
    /// duplicate names are kept.
    public init(method: String, uri: BaseStringURI, parameters: [URLFormField]...) {
        var output: [UInt8] = []
        output.reserveCapacity(method.utf8.count + uri.value.utf8.count * 3 / 2 + 256)
        OAuth1PercentEncoding.append(encoding: method.utf8.lazy.map(Self.uppercased), to: &output)
        output.append(UInt8(ascii: "&"))
        OAuth1PercentEncoding.append(encoding: uri.value, to: &output)
        output.append(UInt8(ascii: "&"))
        Self.appendNormalizedParameters(parameters, to: &output, encodedAgain: true)
        bytes = output
    }

    /// The normalised parameter string of RFC 5849 §3.4.1.3.2, before it is encoded into the base string.
    public static func normalizedParameters(_ parameters: [URLFormField]...) -> String {
        var output: [UInt8] = []
        appendNormalizedParameters(parameters, to: &output, encodedAgain: false)
        return String(decoding: output, as: UTF8.self)
    }

    /// The base string as text.
    public var string: String { String(decoding: bytes, as: UTF8.self) }

    public var description: String { string }

    /// Where one encoded parameter lies in the shared buffer: name in `start..<equals`, value in `equals..<end`.
    private struct EncodedPair {
        var start: Int
        var equals: Int
        var end: Int
    }

    private static func appendNormalizedParameters(
        _ lists: [[URLFormField]], to output: inout [UInt8], encodedAgain: Bool
    ) {
        var storage: [UInt8] = []
        var pairs: [EncodedPair] = []
        pairs.reserveCapacity(lists.reduce(0) { $0 + $1.count })
        for list in lists {
            for field in list where field.name != "oauth_signature" {
                let start = storage.count
                OAuth1PercentEncoding.append(encoding: field.name, to: &storage)
                let equals = storage.count
                OAuth1PercentEncoding.append(encoding: field.value, to: &storage)
                pairs.append(EncodedPair(start: start, equals: equals, end: storage.count))
            }
        }
        storage.withUnsafeBufferPointer { buffer in
            pairs.sort { left, right in
                let byName = compare(buffer[left.start..<left.equals], buffer[right.start..<right.equals])
                if byName != 0 { return byName < 0 }
                return compare(buffer[left.equals..<left.end], buffer[right.equals..<right.end]) < 0
            }
            for (position, pair) in pairs.enumerated() {
                if position > 0, encodedAgain {
                    output.append(contentsOf: "%26".utf8)
                } else if position > 0 {
                    output.append(UInt8(ascii: "&"))
                }
                let name = buffer[pair.start..<pair.equals]
                let value = buffer[pair.equals..<pair.end]
                if encodedAgain {
                    OAuth1PercentEncoding.append(encoding: name, to: &output)
                    output.append(contentsOf: "%3D".utf8)
                    OAuth1PercentEncoding.append(encoding: value, to: &output)
                } else {
                    output.append(contentsOf: name)
                    output.append(UInt8(ascii: "="))
                    output.append(contentsOf: value)
                }
            }
        }
    }

    /// Ascending byte-value order (§3.4.1.3.2 step 2): negative, zero or positive like `memcmp`.
    private static func compare(_ left: Slice<UnsafeBufferPointer<UInt8>>, _ right: Slice<UnsafeBufferPointer<UInt8>>)
        -> Int
    {
        let common = min(left.count, right.count)
        if common > 0, let leftBase = left.base.baseAddress, let rightBase = right.base.baseAddress {
            let result = memcmp(leftBase + left.startIndex, rightBase + right.startIndex, common)
            if result != 0 { return Int(result) }
        }
        return left.count - right.count
    }

    private static func uppercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") ? byte - 0x20 : byte
    }
}
