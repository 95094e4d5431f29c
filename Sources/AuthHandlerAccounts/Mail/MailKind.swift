/// The mails the accounts backend sends, each with its fixed subject (docs/ACCOUNTS.md "E-mail addresses and mail").
package enum MailKind: String, Sendable, CaseIterable, CustomStringConvertible {
    /// A password reset link (`mode=resetPassword`), asked for by anyone who knows the address.
    case resetPassword = "reset-password"
    /// A link that verifies the account's address (`mode=verifyEmail`).
    case verifyEmail = "verify-email"
    /// A link, sent to a new address, that confirms a change to it (`mode=verifyAndChangeEmail`).
    case verifyNewEmail = "verify-new-email"
    /// The notice to the old address that the e-mail changed, with a link that restores it (`mode=recoverEmail`).
    case emailChanged = "email-changed"
    /// The notice that a sign-in method was linked to the account.
    case identityLinked = "identity-linked"

    /// The `Subject` field: fixed text, never anything a user typed.
    package var subject: String {
        switch self {
        case .resetPassword: "Reset your password"
        case .verifyEmail: "Verify your e-mail address"
        case .verifyNewEmail: "Confirm your new e-mail address"
        case .emailChanged: "Your e-mail address was changed"
        case .identityLinked: "A sign-in method was added to your account"
        }
    }

    /// Which per-recipient limit the mail counts against: a notice of a change the account holder made must not be
    /// suppressed because someone else first asked for three reset links to that address.
    package var limitGroup: MailLimitGroup {
        switch self {
        case .resetPassword, .verifyEmail, .verifyNewEmail: .requested
        case .emailChanged, .identityLinked: .notice
        }
    }

    package var description: String { rawValue }
}

/// The two budgets of mails per recipient and hour (``MailQueue``).
package enum MailLimitGroup: String, Sendable {
    /// Links asked for through an endpoint: resets, verifications.
    case requested
    /// Security notices about changes to the account.
    case notice
}
