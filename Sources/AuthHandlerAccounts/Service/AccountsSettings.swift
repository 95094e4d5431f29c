import AuthHandlerCrypto
import Foundation

/// What the accounts engine is told by the configuration (CONFIG.md `backend`, kind `accounts`), as plain values.
package struct AccountsSettings: Sendable {
    /// The ID tokens' issuer, audience, lifetime and whether they list identities.
    package var idToken: IDTokenSettings
    /// A session unused this long ends (`refreshToken.idleDays`).
    package var refreshIdle: TimeInterval = 30 * 86400
    /// A session ends this long after its sign-in (`refreshToken.absoluteDays`).
    package var refreshAbsolute: TimeInterval = 90 * 86400
    /// How long a used token whose successor was never used still gets that successor (`lostAnswerSeconds`).
    package var lostAnswer: TimeInterval = 300
    /// How long after its first use a used token gets its successor again whatever happened since: two tabs
    /// refreshing at once (docs/ACCOUNTS.md "Refresh tokens and sessions").
    package var concurrentUse: TimeInterval = 10
    /// How recent a sign-in the sensitive operations need (issue 25 §2: 5 minutes).
    package var recentLogin: TimeInterval = 300
    /// Whether e-mail and password sign-up and sign-in are served (`password.enabled`).
    package var passwordsEnabled = true
    /// How long a pending credential of `account-exists-with-different-credential` can be linked (10 minutes).
    package var pendingCredentialLifetime: TimeInterval = 600

    package init(idToken: IDTokenSettings) {
        self.idToken = idToken
    }
}
