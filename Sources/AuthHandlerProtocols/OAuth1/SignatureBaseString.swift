import AuthHandlerHTTP
import AuthHandlerSystem

/// The signature base string of RFC 5849 §3.4.1.1: `METHOD&enc(base string URI)&enc(normalised parameters)`.
///
/// Built on UTF-8 bytes: each parameter is encoded once into one temporary buffer, sorted by ranges into
/// it, and written out encoded a second time into the output, allocated once, without building the
/// normalised string in between.
package struct SignatureBaseString: Sendable, Hashable, CustomStringConvertible {
    /// The base string's bytes, the HMAC message.
    package let bytes: [UInt8]

    /// Builds the base string from the HTTP method, the base string URI and the decoded request
    /// parameters: query, form body (when `application/x-www-form-urlencoded`) and protocol parameters
    /// (without `realm`), given as one or more lists. Any `oauth_signature` is left out (§3.4.1.3.1);
    /// duplicate names are kept.
    package init(method: String, uri: BaseStringURI, parameters: [URLFormField]...) {
        let lists = Self.threeLists(parameters)
        self.init(method: method, uri: uri, lists.0, lists.1, lists.2)
    }

    /// The base string of the query, body and protocol parameters, given apart (the signer's and the
    /// verifier's path, which gathers no array of lists).
    init(method: String, uri: BaseStringURI, _ query: [URLFormField], _ body: [URLFormField], _ oauth: [URLFormField]) {
        bytes = EncodedPairs.with(query, body, oauth) { pairs in
            let capacity =
                RFC3986.encodedBound(method.utf8.count + uri.value.utf8.count) + 2
                + pairs.encodedAgainBound
            return ByteWriter.bytes(capacity: capacity) { writer in
                for byte in method.utf8 { writer.write(percentEncoding: Self.uppercased(byte)) }
                writer.write(UInt8(ascii: "&"))
                writer.write(percentEncoding: uri.value)
                writer.write(UInt8(ascii: "&"))
                pairs.write(to: &writer, encodedAgain: true)
            }
        }
    }

    /// The normalised parameter string of RFC 5849 §3.4.1.3.2, before it is encoded into the base string.
    package static func normalizedParameters(_ parameters: [URLFormField]...) -> String {
        let lists = threeLists(parameters)
        return EncodedPairs.with(lists.0, lists.1, lists.2) { pairs in
            ByteWriter.string(capacity: pairs.bound) { pairs.write(to: &$0, encodedAgain: false) }
        }
    }

    /// Any number of parameter lists as three (the first holds them all when there are more).
    private static func threeLists(_ lists: [[URLFormField]]) -> ([URLFormField], [URLFormField], [URLFormField]) {
        switch lists.count {
        case 0: ([], [], [])
        case 1: (lists[0], [], [])
        case 2: (lists[0], lists[1], [])
        case 3: (lists[0], lists[1], lists[2])
        default: (lists.flatMap { $0 }, [], [])
        }
    }

    /// The base string as text.
    package var string: String { String(decoding: bytes, as: UTF8.self) }

    package var description: String { string }

    /// The request parameters each encoded once (§3.4.1.3.2 step 1) into one buffer and sorted (step 2): the bytes in
    /// temporary memory (on the stack when small) that lives only while `with`'s body runs.
    private struct EncodedPairs {
        /// Where one encoded parameter lies in `storage`: name in `start..<equals`, value in `equals..<end`.
        struct Pair {
            var start: Int
            var equals: Int
            var end: Int

            var name: Range<Int> { start..<equals }
            var value: Range<Int> { equals..<end }
        }

        let storage: ByteWriter
        let pairs: [Pair]

        /// Encodes and sorts the parameters of the three lists, then runs `body` on them.
        static func with<Result>(
            _ first: [URLFormField], _ second: [URLFormField], _ third: [URLFormField], _ body: (EncodedPairs) -> Result
        ) -> Result {
            let capacity = RFC3986.encodedBound(byteCount(first) + byteCount(second) + byteCount(third))
            return ByteWriter.withTemporary(capacity: capacity) { storage in
                var pairs: [Pair] = []
                pairs.reserveCapacity(first.count + second.count + third.count)
                encode(first, with: &storage, into: &pairs)
                encode(second, with: &storage, into: &pairs)
                encode(third, with: &storage, into: &pairs)
                sort(&pairs, in: storage)
                return body(EncodedPairs(storage: storage, pairs: pairs))
            }
        }

        private static func byteCount(_ list: [URLFormField]) -> Int {
            list.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count }
        }

        /// Encodes each field of `list` but `oauth_signature` (§3.4.1.3.2 step 1) and records where it lies.
        private static func encode(_ list: [URLFormField], with writer: inout ByteWriter, into pairs: inout [Pair]) {
            for field in list where !isSignature(field.name) {
                let start = writer.count
                writer.write(percentEncoding: field.name)
                let equals = writer.count
                writer.write(percentEncoding: field.value)
                pairs.append(Pair(start: start, equals: equals, end: writer.count))
            }
        }

        /// The most bytes `name=value&...` takes.
        var bound: Int { storage.count + 2 * pairs.count }

        /// The most bytes `enc(name=value&...)` takes: encoding again turns only `%`, `=` and `&` into 3 bytes.
        var encodedAgainBound: Int { RFC3986.encodedBound(bound) }

        /// Writes `name=value` pairs joined by `&` (§3.4.1.3.2 steps 3 and 4), percent-encoded again for the
        /// base string when `encodedAgain` (§3.4.1.1 step 5).
        func write(to writer: inout ByteWriter, encodedAgain: Bool) {
            for (position, pair) in pairs.enumerated() {
                if encodedAgain {
                    if position > 0 { writer.write("%26") }
                    writer.write(reencoding: pair.name, of: storage)
                    writer.write("%3D")
                    writer.write(reencoding: pair.value, of: storage)
                } else {
                    if position > 0 { writer.write(UInt8(ascii: "&")) }
                    writer.write(pair.name, of: storage)
                    writer.write(UInt8(ascii: "="))
                    writer.write(pair.value, of: storage)
                }
            }
        }
    }

    /// True for `oauth_signature`, which is never signed (§3.4.1.3.1). The length, which rules out most
    /// names, is compared before the text.
    private static func isSignature(_ name: String) -> Bool {
        name.utf8.count == 15 && name == "oauth_signature"
    }

    /// Sorts `pairs` by name, then value, in ascending byte order (§3.4.1.3.2 step 2). A request has a
    /// handful of parameters, which an insertion sort orders without the general sort's set-up; long
    /// lists (a large form body) take the general sort, so that the time stays O(n log n).
    private static func sort(_ pairs: inout [EncodedPairs.Pair], in storage: ByteWriter) {
        func precedes(_ left: EncodedPairs.Pair, _ right: EncodedPairs.Pair) -> Bool {
            let byName = storage.compareWritten(left.name, right.name)
            if byName != 0 { return byName < 0 }
            return storage.compareWritten(left.value, right.value) < 0
        }
        guard pairs.count <= 16 else {
            pairs.sort(by: precedes)
            return
        }
        for sorted in pairs.indices.dropFirst() {
            let pair = pairs[sorted]
            var index = sorted
            while index > 0, precedes(pair, pairs[index - 1]) {
                pairs[index] = pairs[index - 1]
                index -= 1
            }
            pairs[index] = pair
        }
    }

    private static func uppercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") ? byte - 0x20 : byte
    }
}
