import COpenSSL
import Foundation
import Synchronization

/// Cryptographically secure random bytes from OpenSSL's `RAND_bytes`.
///
/// Draws of up to `RandomPool.largestDraw` bytes (nonces, states, verifiers, keys) are served from a
/// pool that `RAND_bytes` fills 4 KiB at a time; larger draws call it directly.
package enum SecureRandom {
    /// `count` random bytes; throws if the generator is not seeded (never silently weak).
    package static func bytes(_ count: Int) throws(CryptoError) -> [UInt8] {
        guard count >= 0 else { throw CryptoError(operation: "RAND_bytes", detail: "cannot draw \(count) bytes") }
        var output = [UInt8](repeating: 0, count: count)
        let filled = output.withUnsafeMutableBytes { buffer in Result { () throws(CryptoError) in try fill(buffer) } }
        try filled.get()
        return output
    }

    /// `count` random bytes as base64url without padding (e.g. 32 bytes → 43 characters).
    ///
    /// The bytes are drawn into a stack buffer, wiped after encoding; only the string is allocated.
    package static func base64URLString(byteCount count: Int) throws(CryptoError) -> String {
        guard (0...256).contains(count) else { return Base64.urlEncode(try bytes(count)) }
        let drawn = withUnsafeTemporaryAllocation(byteCount: max(count, 1), alignment: 1) { buffer in
            defer { OPENSSL_cleanse(buffer.baseAddress, buffer.count) }
            let bytes = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count])
            return Result { () throws(CryptoError) in
                try fill(bytes)
                return Base64.encode(UnsafeRawBufferPointer(bytes), alphabet: Base64.urlAlphabet, padded: false)
            }
        }
        return try drawn.get()
    }

    /// Fills `buffer` from the CSPRNG; throws if the generator is not seeded (never silently weak).
    private static func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(CryptoError) {
        if buffer.count <= RandomPool.largestDraw {
            try RandomPool.shared.fill(buffer)
        } else {
            try drawFromOpenSSL(buffer)
        }
    }

    /// Fills `buffer` with one `RAND_bytes` call.
    fileprivate static func drawFromOpenSSL(_ buffer: UnsafeMutableRawBufferPointer) throws(CryptoError) {
        guard buffer.count <= Int(Int32.max) else {
            throw CryptoError(operation: "RAND_bytes", detail: "cannot draw \(buffer.count) bytes")
        }
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        guard RAND_bytes(base.assumingMemoryBound(to: UInt8.self), Int32(buffer.count)) == 1 else {
            throw CryptoError.fromOpenSSL("RAND_bytes")
        }
    }
}

/// CSPRNG output drawn 4 KiB at a time and handed out in order, each byte once.
///
/// Why: in OpenSSL 3.0 every `RAND_bytes` call pays about 1 µs of fixed cost (DRBG lookup, locks,
/// parameter queries, a fork check) whatever its length, more than the HMAC of an OAuth 1.0a signature;
/// a 4 KiB draw costs about 3 µs. The bytes are the DRBG's own output (RFC 4086 §6.3): only the number of
/// calls changes. Each byte is wiped from the pool as it is handed out. A forked child never hands out
/// the parent's bytes: a pthread_atfork(3) child handler counts forks, and the pool refills when the count it was
/// filled under is not the current one (no getpid(2) system call per draw).
private final class RandomPool: Sendable {
    static let shared = RandomPool()
    /// Draws larger than this bypass the pool.
    static let largestDraw = 256
    private static let blockSize = 4096

    private struct State {
        var bytes = [UInt8](repeating: 0, count: RandomPool.blockSize)
        /// The first byte not yet handed out; `blockSize` when the pool is empty.
        var next = RandomPool.blockSize
        /// `forkCount` when the pool was filled; -1 before the first fill.
        var filledAt = -1
    }

    private let state = Mutex(State())

    private init() {
        pthread_atfork(nil, nil, { forkCount.add(1, ordering: .relaxed) })
    }

    /// Fills `buffer` (at most `largestDraw` bytes) from the pool, refilling it first when it runs short.
    func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(CryptoError) {
        let filled = state.withLock { state in
            Result { () throws(CryptoError) in
                let forks = forkCount.load(ordering: .relaxed)
                if state.filledAt != forks || state.next + buffer.count > state.bytes.count {
                    let refilled = state.bytes.withUnsafeMutableBytes { pool in
                        Result { () throws(CryptoError) in try SecureRandom.drawFromOpenSSL(pool) }
                    }
                    try refilled.get()
                    state.next = 0
                    state.filledAt = forks
                }
                let start = state.next
                state.bytes.withUnsafeMutableBytes { pool in
                    let taken = UnsafeMutableRawBufferPointer(rebasing: pool[start..<(start + buffer.count)])
                    buffer.copyMemory(from: UnsafeRawBufferPointer(taken))
                    OPENSSL_cleanse(taken.baseAddress, taken.count)
                }
                state.next = start + buffer.count
            }
        }
        try filled.get()
    }
}

/// How many times this process has forked since the pool existed (in each child, one more than its parent saw).
private let forkCount = Atomic<Int>(0)
