/// What one mail says, per kind: the link it carries and the little else it names. The body is plain text built from
/// fixed sentences; what a user typed (a display name, a new address) appears only here, never in a header, and
/// without line breaks or other control characters.
package enum MailContent: Sendable, Equatable {
    /// A password reset link.
    case resetPassword(link: String)
    /// A link that verifies the account's address.
    case verifyEmail(link: String)
    /// A link to the new address that confirms the change to it.
    case verifyNewEmail(link: String)
    /// To the old address: the e-mail changed (to `newAddress`, when given), and a link that restores it.
    case emailChanged(recoverLink: String, newAddress: String?)
    /// A sign-in method (`providerName`, e.g. "Google") was linked; `link` is where to act if it was not the holder.
    case identityLinked(providerName: String, link: String)

    /// The most characters of a user's value the body shows.
    static let maximumShownLength = 256

    package var kind: MailKind {
        switch self {
        case .resetPassword: .resetPassword
        case .verifyEmail: .verifyEmail
        case .verifyNewEmail: .verifyNewEmail
        case .emailChanged: .emailChanged
        case .identityLinked: .identityLinked
        }
    }

    /// The body text, lines ending in LF, for `appName` (the configuration's name for the app) and the account's
    /// display name, if it has one.
    package func body(appName: String, displayName: String?) -> String {
        let app = Self.shown(appName)
        let greeting = displayName.map(Self.shown).flatMap { $0.isEmpty ? nil : "Hello \($0)," } ?? "Hello,"
        let lines: [String]
        switch self {
        case .resetPassword(let link):
            lines = [
                "Follow this link to reset your \(app) password:", "", Self.oneLine(link), "",
                "If you did not ask to reset your password, you can ignore this e-mail.",
            ]
        case .verifyEmail(let link):
            lines = [
                "Follow this link to verify your e-mail address for \(app):", "", Self.oneLine(link), "",
                "If you did not ask to verify this address, you can ignore this e-mail.",
            ]
        case .verifyNewEmail(let link):
            lines = [
                "Follow this link to make this address the sign-in e-mail of your \(app) account:", "",
                Self.oneLine(link), "", "If you did not ask to change your e-mail address, you can ignore this e-mail.",
            ]
        case .emailChanged(let recoverLink, let newAddress):
            let changed =
                newAddress.map { "The sign-in e-mail of your \(app) account was changed to \(Self.shown($0))." }
                ?? "The sign-in e-mail of your \(app) account was changed."
            lines = [
                changed, "",
                "If you did not change it, follow this link to restore this address and sign out everywhere:", "",
                Self.oneLine(recoverLink),
            ]
        case .identityLinked(let providerName, let link):
            lines = [
                "\(Self.shown(providerName)) was added as a way to sign in to your \(app) account.", "",
                "If you did not add it, follow this link to reset your password:", "", Self.oneLine(link),
            ]
        }
        return ([greeting, ""] + lines + ["", "Thanks,", "The \(app) team"]).joined(separator: "\n") + "\n"
    }

    /// A user's `value` as the body shows it: on one line (``oneLine(_:)``), cut to `maximumShownLength` characters.
    static func shown(_ value: String) -> String {
        String(oneLine(value).prefix(maximumShownLength))
    }

    /// `value` without control characters (CR, LF, NUL, …) and Unicode line and paragraph separators; a link is
    /// shown so, whole.
    static func oneLine(_ value: String) -> String {
        var kept = String.UnicodeScalarView()
        for scalar in value.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .lineSeparator, .paragraphSeparator: continue
            default: kept.append(scalar)
            }
        }
        return String(kept)
    }
}
