import COpenSSL
import Foundation

/// Comparison whose running time does not depend on where two secrets differ.
package enum ConstantTime {
    /// True when `a` and `b` are equal. Lengths are not secret (a MAC, state or verifier has a
    /// public length), so a length mismatch returns early; equal lengths compare with `CRYPTO_memcmp`.
    package static func equals(_ a: some ContiguousBytes, _ b: some ContiguousBytes) -> Bool {
        a.withUnsafeBytes { left in
            b.withUnsafeBytes { right in
                guard left.count == right.count else { return false }
                guard left.count > 0 else { return true }
                return CRYPTO_memcmp(left.baseAddress, right.baseAddress, left.count) == 0
            }
        }
    }

    /// String convenience: compares the UTF-8 bytes.
    package static func equals(_ a: String, _ b: String) -> Bool {
        equals(Array(a.utf8), Array(b.utf8))
    }
}
