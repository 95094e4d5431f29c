import AuthHandlerAccounts
import AuthHandlerHTTP
import Foundation

/// The pages an e-mail action link opens, `/__/auth/action` (HTTP-API.md §3.10): the form a GET shows (it uses
/// nothing), the page after the POST that acts, and the page for a link that cannot be used. They are in the shell
/// of the pages people see (HTTP-API.md §3.7).
///
/// The form posts to `action`, relative to the page, so it reaches `/__/auth/action` wherever the daemon is served
/// from; the code travels in the form's body, so the address the browser shows after the POST holds none.
enum AccountsActionPages {
    /// What one page is about: the kind of link, its code and the app's `continueUrl` (already allowed).
    struct Link {
        var info: AccountsEngine.ActionCodeInfo
        var code: String
        var continueURL: String?
    }

    /// The page a GET shows: what the link does, for whom, and the button (with a new-password field for a reset)
    /// that does it; `problem` says why the last attempt was refused.
    static func form(_ link: Link, minimumLength: Int, problem: String?, audience: PageAudience) -> String {
        var content: [String] = []
        if let problem { content.append(HTMLPage.paragraph(problem, id: "action-problem", class: "next")) }
        content.append(HTMLPage.paragraph(lead(link.info, audience: audience), id: "action-summary", class: "lead"))
        content += [
            #"<form method="post" action="action">"#,
            hidden("mode", link.info.kind.mode), hidden("oobCode", link.code),
        ]
        if let continueURL = link.continueURL { content.append(hidden("continueUrl", continueURL)) }
        if link.info.kind == .resetPassword {
            content += [
                #"<label for="newPassword">New password</label>"#,
                #"<input id="newPassword" name="newPassword" type="password" autocomplete="new-password" "#
                    + #"minlength="\#(minimumLength)" maxlength="256" required>"#,
                HTMLPage.paragraph("At least \(minimumLength) characters.", class: "muted"),
            ]
        }
        content += [
            #"<button class="primary" id="action-confirm" type="submit">\#(HTMLPage.escape(button(link.info.kind)))"#
                + "</button>",
            "</form>",
        ]
        if let warning = warning(link.info.kind) {
            content.append(HTMLPage.paragraph(warning, id: "action-warning", class: "muted"))
        }
        return HTMLPage(heading: heading(link.info.kind), content: content.joined(separator: "\n")).render()
    }

    /// The page after the POST acted: what changed, and the app's `continueUrl` as a link when it is allowed.
    static func done(_ info: AccountsEngine.ActionCodeInfo, continueURL: String?, audience: PageAudience) -> String {
        let (heading, lead, next) =
            switch info.kind {
            case .resetPassword:
                ("Password changed", "Your password was changed.", "Sign in with your new password.")
            case .verifyEmail:
                ("Address verified", "\(info.email) is verified.", audience.nextStepAfterSuccess)
            case .verifyAndChangeEmail:
                (
                    "Address changed", "Your account's sign-in e-mail is now \(info.email).",
                    "Sign in with it from now on."
                )
            case .recoverEmail:
                (
                    "Address restored",
                    "Your account's sign-in e-mail is \(info.email) again, and every device was signed out.",
                    "If you did not change it yourself, reset your password now."
                )
            }
        var content = [
            HTMLPage.paragraph(lead, id: "action-done", class: "lead"), HTMLPage.paragraph(next, class: "next"),
        ]
        if let continueURL {
            content.append(
                #"<ul class="choices"><li><a class="choice" id="action-continue" "#
                    + #"href="\#(HTMLPage.escape(continueURL))">Continue</a></li></ul>"#)
        }
        return HTMLPage(heading: heading, tone: .success, content: content.joined(separator: "\n")).render()
    }

    /// The page for a link that cannot be used (HTTP-API.md §3.5's error page, worded for a link): unknown, used,
    /// expired, or the account changed since it was sent; or a refusal of the POST itself.
    static func failure(_ error: APIError, audience: PageAudience) -> String {
        let explanation =
            error.code == .invalidActionCode
            ? "This link has expired, was already used, or your account changed since it was sent."
            : error.code.explanationForPeople
        let next =
            error.code == .invalidActionCode
            ? "Ask the app for a new link." : "Open the link from the e-mail again, or ask the app for a new one."
        return HTMLPage(
            heading: "This link cannot be used", tone: .failure,
            content: [
                HTMLPage.paragraph(explanation, id: "error-explanation", class: "lead"),
                HTMLPage.paragraph(next, id: "next-step", class: "next"),
                "<details><summary>Technical details</summary>",
                HTMLPage.paragraph(error.message, id: "error-message"),
                "</details>",
            ].joined(separator: "\n"),
            footer: #"<p>Error code <code id="error-code">\#(HTMLPage.escape(error.code.rawValue))</code></p>"#
        ).render()
    }

    static func heading(_ kind: OneTimeCodeKind) -> String {
        switch kind {
        case .resetPassword: "Reset your password"
        case .verifyEmail: "Verify your e-mail address"
        case .verifyAndChangeEmail: "Confirm your new e-mail address"
        case .recoverEmail: "Restore your e-mail address"
        }
    }

    private static func lead(_ info: AccountsEngine.ActionCodeInfo, audience: PageAudience) -> String {
        let account = audience.productName.map { "your \($0) account" } ?? "your account"
        return switch info.kind {
        case .resetPassword: "Choose a new password for \(account) (\(info.email))."
        case .verifyEmail: "Confirm that \(info.email) is the e-mail address of \(account)."
        case .verifyAndChangeEmail: "Make \(info.email) the sign-in e-mail of \(account)."
        case .recoverEmail:
            "Make \(info.email) the sign-in e-mail of \(account) again, and sign out every device."
        }
    }

    private static func button(_ kind: OneTimeCodeKind) -> String {
        switch kind {
        case .resetPassword: "Save the new password"
        case .verifyEmail: "Verify this address"
        case .verifyAndChangeEmail: "Change my e-mail address"
        case .recoverEmail: "Restore my e-mail address"
        }
    }

    private static func warning(_ kind: OneTimeCodeKind) -> String? {
        switch kind {
        case .resetPassword: "Every device signed in to the account will be signed out."
        case .verifyEmail: "Verify only if you created this account yourself."
        case .verifyAndChangeEmail: "Continue only if you asked for this change."
        case .recoverEmail: nil
        }
    }

    private static func hidden(_ name: String, _ value: String) -> String {
        #"<input type="hidden" name="\#(name)" value="\#(HTMLPage.escape(value))">"#
    }
}
