import Foundation

/// An e-mail action code (HTTP-API.md §3.10, docs/ACCOUNTS.md "E-mail actions"), the `oobCode` of an action link: a
/// ``RandomToken`` (OWASP Forgot Password Cheat Sheet: a reset token random, long enough, single use and expiring).
/// The store keeps only its digest.
package typealias ActionCode = RandomToken<ActionCodePurpose>

package enum ActionCodePurpose: RandomTokenPurpose {
    package static let name = "ActionCode"
}

extension OneTimeCodeKind {
    /// How long a code of this kind can be used: a reset an hour (OWASP Forgot Password Cheat Sheet: short-lived), a
    /// verification three days, a recovery of a changed address seven days (the owner may be away when it comes).
    package var lifetime: TimeInterval {
        switch self {
        case .resetPassword: 3600
        case .verifyEmail, .verifyAndChangeEmail: 3 * 86400
        case .recoverEmail: 7 * 86400
        }
    }

    /// The link's `mode`, Firebase's action-link modes: the kind's raw value.
    package var mode: String { rawValue }
}
