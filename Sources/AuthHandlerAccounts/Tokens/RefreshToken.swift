/// A refresh token (issue 25 §4 "Refresh"): a ``RandomToken``. The store keeps only its digest, and its successor
/// sealed under a key only the token opens (`RefreshTokenSuccessorSeal`).
package typealias RefreshToken = RandomToken<RefreshTokenPurpose>

package enum RefreshTokenPurpose: RandomTokenPurpose {
    package static let name = "RefreshToken"
}
