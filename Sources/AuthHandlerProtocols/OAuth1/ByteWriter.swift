import AuthHandlerCrypto
import AuthHandlerHTTP

/// Writes bytes into memory sized in advance: the OAuth 1.0a base string, signing key and header are
/// built this way, without the capacity and uniqueness checks `Array.append` makes for every byte.
///
/// The caller gives an upper bound of what it writes (a percent-encoded byte takes at most 3 bytes,
/// RFC 5849 §3.6); writing past it is a programming error that the debug build's assertions catch.
struct ByteWriter {
    private let buffer: UnsafeMutableBufferPointer<UInt8>
    /// How many bytes have been written so far.
    private(set) var count = 0

    /// A writer over `buffer`, which must outlive it.
    init(buffer: UnsafeMutableBufferPointer<UInt8>) {
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

    /// Appends one byte.
    mutating func write(_ byte: UInt8) {
        assert(count < buffer.count, "ByteWriter capacity too small")
        buffer[count] = byte
        count += 1
    }

    /// Appends `bytes` as they are.
    mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        assert(count + bytes.count <= buffer.count, "ByteWriter capacity too small")
        guard let source = bytes.baseAddress, let target = buffer.baseAddress, !bytes.isEmpty else { return }
        (target + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    /// Runs `write` with a pointer to where the next byte goes, for a loop that writes at most `bound` bytes
    /// without a check per byte; the bytes it moved the pointer past count as written.
    mutating func writeThroughPointer(atMost bound: Int, _ write: (inout UnsafeMutablePointer<UInt8>) -> Void) {
        assert(count + bound <= buffer.count, "ByteWriter capacity too small")
        guard bound > 0, let target = buffer.baseAddress else { return }
        var output = target + count
        write(&output)
        count = output - target
    }

    /// Appends ASCII text given as a literal, e.g. the `%26` separator.
    mutating func write(_ text: StaticString) {
        for byte in UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount) { write(byte) }
    }
}
