import AuthHandlerHTTP
import AuthHandlerSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Writes bytes into memory sized in advance: the OAuth 1.0a base string, signing key and header are
/// built this way, without the capacity and uniqueness checks `Array.append` makes for every byte.
///
/// The caller gives an upper bound of what it writes (a percent-encoded byte takes at most 3 bytes,
/// RFC 5849 §3.6); writing past it is a programming error that stops the process in every build (a `precondition`,
/// not an `assert`, which a release build removes), because an unchecked write there would corrupt memory.
///
/// Every pointer of the OAuth 1.0a code lives in this file: the rest of it writes through these methods, reads back
/// what it wrote by offsets (`write(_:of:)`, `compareWritten`), and parses plain byte arrays.
struct ByteWriter {
    private let buffer: UnsafeMutableBufferPointer<UInt8>
    /// How many bytes have been written so far.
    private(set) var count = 0

    /// A writer over `buffer`, which must outlive it.
    private init(buffer: UnsafeMutableBufferPointer<UInt8>) {
        self.buffer = buffer
    }

    /// The bytes `write` produces, in an array allocated once with room for `capacity` bytes.
    static func bytes(capacity: Int, _ write: (inout ByteWriter) -> Void) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
            var writer = ByteWriter(buffer: buffer)
            write(&writer)
            initialized = writer.count
        }
    }

    /// The text `write` produces (UTF-8), in a string allocated once with room for `capacity` bytes.
    static func string(capacity: Int, _ write: (inout ByteWriter) -> Void) -> String {
        String(unsafeUninitializedCapacity: capacity) { buffer in
            var writer = ByteWriter(buffer: buffer)
            write(&writer)
            return writer.count
        }
    }

    /// Runs `body` with a writer over temporary memory (on the stack when small) with room for `capacity` bytes,
    /// which lives only while `body` runs: for bytes that are only read back, such as the encoded parameters the base
    /// string sorts.
    static func withTemporary<Result>(capacity: Int, _ body: (inout ByteWriter) -> Result) -> Result {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var writer = ByteWriter(buffer: buffer)
            return body(&writer)
        }
    }

    /// Runs `body` on the bytes `write` produces, kept in temporary memory rather than an array (the signing key
    /// of RFC 5849 §3.4.2 is handed to HMAC this way and never reaches the heap).
    static func withTemporaryBytes<Result>(
        capacity: Int, _ write: (inout ByteWriter) -> Void, _ body: (UnsafeRawBufferPointer) -> Result
    ) -> Result {
        withTemporary(capacity: capacity) { writer in
            write(&writer)
            return body(UnsafeRawBufferPointer(writer.written(0..<writer.count)))
        }
    }

    /// Appends one byte.
    mutating func write(_ byte: UInt8) {
        precondition(count < buffer.count, "ByteWriter capacity too small")
        buffer[count] = byte
        count += 1
    }

    /// Appends `bytes` as they are.
    mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        precondition(count + bytes.count <= buffer.count, "ByteWriter capacity too small")
        guard let source = bytes.baseAddress, let target = buffer.baseAddress, !bytes.isEmpty else { return }
        (target + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    /// Appends `bytes` as they are.
    mutating func write(_ bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBufferPointer { write($0) }
    }

    /// Appends the bytes `source` wrote at `range`, as they are.
    mutating func write(_ range: Range<Int>, of source: ByteWriter) {
        write(source.written(range))
    }

    /// Runs `write` with a pointer to where the next byte goes, for a loop that writes at most `bound` bytes
    /// without a check per byte; the bytes it moved the pointer past count as written.
    private mutating func writeThroughPointer(atMost bound: Int, _ write: (inout UnsafeMutablePointer<UInt8>) -> Void) {
        precondition(count + bound <= buffer.count, "ByteWriter capacity too small")
        guard bound > 0, let target = buffer.baseAddress else { return }
        var output = target + count
        write(&output)
        count = output - target
    }

    /// Appends ASCII text given as a literal, e.g. the `%26` separator.
    mutating func write(_ text: StaticString) {
        for byte in UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount) { write(byte) }
    }

    /// Orders the bytes written at `left` and at `right` by byte value, as `memcmp` does, a prefix before what it
    /// begins: negative, zero or positive.
    func compareWritten(_ left: Range<Int>, _ right: Range<Int>) -> Int {
        let common = min(left.count, right.count)
        if common > 0, let base = buffer.baseAddress {
            let result = memcmp(base + left.lowerBound, base + right.lowerBound, common)
            if result != 0 { return Int(result) }
        }
        return left.count - right.count
    }

    /// The bytes written at `range`.
    private func written(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
        precondition(range.upperBound <= count, "ByteWriter read past what was written")
        return UnsafeBufferPointer(rebasing: buffer[range])
    }
}

/// The percent-encoding of RFC 5849 §3.6 (`RFC3986`'s), written in one pass through a pointer into the output, which
/// has room for the worst case (every byte escaped): no per-byte capacity check, no per-run copy call.
extension ByteWriter {
    /// Appends the encoding of `string`'s UTF-8 bytes.
    mutating func write(percentEncoding string: String) {
        let done: Void? = string.utf8.withContiguousStorageIfAvailable { write(percentEncoding: $0) }
        if done == nil {
            var copy = string
            copy.withUTF8 { write(percentEncoding: $0) }
        }
    }

    /// Appends the encoding of `bytes`.
    mutating func write(percentEncoding bytes: UnsafeBufferPointer<UInt8>) {
        writeThroughPointer(atMost: RFC3986.encodedBound(bytes.count)) { RFC3986.percentEncode(bytes, at: &$0) }
    }

    /// Appends the encoding of `encoded`, text that is itself the output of that encoding: only `%` changes (to
    /// `%25`). The base string encodes the normalised parameters a second time this way (§3.4.1.1 step 5).
    mutating func write(reencoding encoded: UnsafeBufferPointer<UInt8>) {
        writeThroughPointer(atMost: RFC3986.encodedBound(encoded.count)) {
            RFC3986.percentEncodeAgain(encoded, at: &$0)
        }
    }

    /// Appends the encoding, once more, of the encoded bytes `source` wrote at `range`.
    mutating func write(reencoding range: Range<Int>, of source: ByteWriter) {
        write(reencoding: source.written(range))
    }

    /// Appends the encoding of one byte: itself when unreserved, else `%XX`.
    mutating func write(percentEncoding byte: UInt8) {
        writeThroughPointer(atMost: 3) { RFC3986.percentEncode(byte, at: &$0) }
    }
}
