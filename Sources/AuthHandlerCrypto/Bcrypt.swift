import CCrypt
import Foundation

/// bcrypt hashes as other systems store them (`$2a$`, `$2b$`, `$2y$`: Supabase, most web frameworks), checked through
/// libcrypt's `crypt_r` (Debian's libxcrypt, crypt(3), crypt(5) "bcrypt"), which reads the cost and salt from the
/// hash itself. Only checked, never made for a user: a matching password is hashed again with Argon2id.
package enum Bcrypt {
    /// The highest cost an imported hash may have (2^14 rounds, about a second of one core): above it one sign-in
    /// would cost seconds of CPU (docs/ACCOUNTS.md "Imported users").
    package static let maximumCost = 14

    /// A hash's cost; nil when `hash` is not a bcrypt string: `$2a$`, `$2b$` or `$2y$`, two decimal digits of cost
    /// (4 to 31), then 53 characters of bcrypt's base-64 alphabet (22 of salt, 31 of hash).
    package static func cost(of hash: String) -> Int? {
        let bytes = Array(hash.utf8)
        guard bytes.count == 60, bytes[0] == UInt8(ascii: "$"), bytes[1] == UInt8(ascii: "2"),
            [UInt8(ascii: "a"), UInt8(ascii: "b"), UInt8(ascii: "y")].contains(bytes[2]),
            bytes[3] == UInt8(ascii: "$"), bytes[6] == UInt8(ascii: "$"),
            bytes[4...5].allSatisfy(isDigit), bytes[7...].allSatisfy(isAlphabet)
        else { return nil }
        // Exactly two ASCII digits, read by hand: `Int("+9")` is 9, and libcrypt refuses such a cost at every check.
        let cost = Int(bytes[4] - UInt8(ascii: "0")) * 10 + Int(bytes[5] - UInt8(ascii: "0"))
        return (4...31).contains(cost) ? cost : nil
    }

    /// Why `hash` is refused, nil when it is a bcrypt string within ``maximumCost``.
    package static func refusal(of hash: String) -> String? {
        guard let cost = cost(of: hash) else {
            return "not a bcrypt hash ($2a$, $2b$ or $2y$, a two-digit cost, 53 characters of salt and hash)"
        }
        guard cost <= maximumCost else { return "bcrypt cost \(cost) passes the bound of \(maximumCost)" }
        return nil
    }

    /// Whether `password` matches `hash`; false for a password with a NUL byte (a C string cannot carry it, so no
    /// bcrypt implementation could have hashed it) and for a hash ``refusal(of:)`` refuses.
    package static func verify(_ password: [UInt8], hash: String) throws(CryptoError) -> Bool {
        guard refusal(of: hash) == nil, !password.contains(0) else { return false }
        // `struct crypt_data` is about 32 KiB: on the heap, zeroed as crypt_r(3) asks before first use.
        let data = UnsafeMutableRawPointer.allocate(
            byteCount: MemoryLayout<crypt_data>.size, alignment: MemoryLayout<crypt_data>.alignment)
        data.initializeMemory(as: UInt8.self, repeating: 0, count: MemoryLayout<crypt_data>.size)
        defer {
            // It held the password's state: wiped before it is freed.
            data.initializeMemory(as: UInt8.self, repeating: 0, count: MemoryLayout<crypt_data>.size)
            data.deallocate()
        }
        let output: [UInt8]? = (password + [0]).withUnsafeBufferPointer { phrase in
            phrase.withMemoryRebound(to: CChar.self) { phrase in
                guard let result = crypt_r(phrase.baseAddress, hash, data.assumingMemoryBound(to: crypt_data.self))
                else { return nil }
                return Array(
                    UnsafeRawPointer(result).assumingMemoryBound(to: UInt8.self)
                        .withMemoryRebound(to: CChar.self, capacity: 1) { String(cString: $0) }.utf8)
            }
        }
        // crypt_r answers a string starting with `*` (or NULL) on failure (crypt(3) "RETURN VALUE").
        guard let output, output.first != UInt8(ascii: "*") else {
            throw CryptoError(operation: "crypt_r", detail: "libcrypt could not check the bcrypt hash")
        }
        return ConstantTime.equals(output, Array(hash.utf8))
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func isAlphabet(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "/"):
            true
        default: false
        }
    }
}
