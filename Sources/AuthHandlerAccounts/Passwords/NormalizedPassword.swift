import AuthHandlerSystem
import Foundation

/// A password as it is checked and hashed: the NFKC form of what the user typed (Unicode Normalization Form KC,
/// UAX #15), as NIST SP 800-63B-4 §3.1.1.2 asks "prior to hashing", so that a full-width `ｐａｓｓ` and `pass`, or a
/// composed and a decomposed `é`, are one password whichever keyboard typed it.
///
/// The same form is made when a password is set (then checked by ``PasswordPolicy``) and at every sign-in (never
/// checked: the policy applies only when a password is set). Its textual forms never show it.
package struct NormalizedPassword: Sendable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The most UTF-8 bytes read from a request before normalising: 4,096, 16 bytes for each of the 256 code points
    /// a password may have. Anything longer is refused before NFKC and before hashing, so that a 10 MB password costs
    /// a length check and nothing else. No password that can be set is that long: NFKC shrinks a string only by
    /// composing (a Hangul syllable from three conjoining jamo, 9 bytes, is the largest common case), far from 16
    /// bytes a code point.
    package static let maximumInputBytes = 4096

    /// The NFKC form's UTF-8 bytes, what is hashed.
    package let utf8: [UInt8]
    /// The NFKC form's length in Unicode code points, the "characters" NIST counts (§3.1.1.2).
    package let codePointCount: Int
    /// The NFKC form, for the block list.
    let normalized: String

    /// `raw` in NFKC, or ``PasswordTooLong`` (without normalising) when it has more than ``maximumInputBytes`` bytes.
    package init(_ raw: String) throws(PasswordTooLong) {
        guard raw.utf8.count <= Self.maximumInputBytes else { throw PasswordTooLong() }
        normalized = raw.precomposedStringWithCompatibilityMapping
        utf8 = Array(normalized.utf8)
        codePointCount = normalized.unicodeScalars.count
    }

    package var description: String { Redaction.marker }
    package var debugDescription: String { "NormalizedPassword(\(Redaction.marker))" }
    package var customMirror: Mirror { Mirror(self, children: [:]) }
}

/// A password longer than ``NormalizedPassword/maximumInputBytes`` bytes: refused before it is normalised or hashed.
/// When a password is set this is `400 weak-password` (too long); at sign-in the caller answers as for a wrong
/// password, `400 invalid-credential`, since no password that long can have been set.
package struct PasswordTooLong: Error, Sendable, Equatable, CustomStringConvertible {
    package init() {}
    package var description: String {
        "the password is longer than \(NormalizedPassword.maximumInputBytes) bytes"
    }
}
