import AuthHandlerSystem
import Foundation

/// The pages of a device sign-in (HTTP-API.md §3.9): the code entry, the confirmation, and the done page.
///
/// Forms are relative to `/__/auth/device`, so they reach it wherever the daemon is served from.
enum DevicePages {
    /// The page with the code field; `problem` says why the last entry was refused.
    static func entry(problem: String?, audience: PageAudience) -> String {
        var content: [String] = []
        if let problem { content.append(HTMLPage.paragraph(problem, id: "device-problem", class: "next")) }
        content += [
            HTMLPage.paragraph("Enter the code your terminal or device shows.", class: "lead"),
            #"<form method="get" action="device">"#,
            #"<label for="user_code">Code</label>"#,
            #"<input id="user_code" name="user_code" autocomplete="off" autocapitalize="characters" "#
                + #"spellcheck="false" placeholder="BCDF-GHJK" maxlength="16" required>"#,
            #"<button class="primary" type="submit">Next</button>"#,
            "</form>",
        ]
        return HTMLPage(heading: audience.signInHeading(), content: content.joined(separator: "\n")).render()
    }

    /// The confirmation page: who asked, for what, and "Continue only if you started this sign-in yourself".
    static func confirmation(_ facts: DeviceConfirmation, audience: PageAudience) -> String {
        let scopes =
            facts.scopes.isEmpty
            ? HTMLPage.paragraph("It asks for no extra permissions.", class: "muted")
            : HTMLPage.paragraph("It asks for: " + facts.scopes.joined(separator: ", "), id: "device-scopes")
        let content = [
            HTMLPage.paragraph(
                "A device asked to sign in with \(facts.providerName) using code \(facts.userCode).",
                id: "device-summary", class: "lead"),
            scopes,
            HTMLPage.paragraph(
                "It asked from the address \(facts.client), \(ago(facts.age)).", id: "device-origin"),
            HTMLPage.paragraph(
                "Continue only if you started this sign-in yourself. If someone sent you this code or link, cancel.",
                id: "device-warning", class: "next"),
            #"<form method="post" action="device">"#,
            #"<input type="hidden" name="user_code" value="\#(HTMLPage.escape(facts.userCode))">"#,
            #"<input type="hidden" name="confirm" value="\#(HTMLPage.escape(facts.formToken))">"#,
            #"<ul class="choices">"#,
            #"<li><button class="primary" id="device-continue" type="submit" name="decision" value="continue">"#
                + "Continue with \(HTMLPage.escape(facts.providerName))</button></li>",
            #"<li><button id="device-cancel" type="submit" name="decision" value="cancel">Cancel</button></li>"#,
            "</ul>",
            "</form>",
        ]
        return HTMLPage(heading: audience.signInHeading(), content: content.joined(separator: "\n")).render()
    }

    /// The page for a code that was already continued or cancelled: no form, nothing to press (HTTP-API.md §3.9).
    static func alreadyDecided(userCode: String, audience: PageAudience) -> String {
        let content = [
            HTMLPage.paragraph(
                "The code \(userCode) was already used: someone continued or cancelled it, and it cannot be used "
                    + "again.",
                id: "device-used", class: "lead"),
            HTMLPage.paragraph(
                "If you still need to sign in, run the command on your device again for a new code.", class: "next"),
        ]
        return HTMLPage(heading: audience.signInHeading(), content: content.joined(separator: "\n")).render()
    }

    /// The page after "Cancel" or the callback: what happened, and the next step in a second paragraph.
    static func done(_ outcome: DeviceDoneOutcome, audience: PageAudience) -> String {
        let (heading, tone, lead, next, nextClass) =
            switch outcome {
            case .signedIn:
                (
                    audience.successHeading(), HTMLPage.Tone.success,
                    "Return to your terminal: the sign-in is done there.", "You can close this window.", "muted"
                )
            case .cancelled:
                (
                    audience.failureHeading(), .failure, "The sign-in was cancelled; nobody was signed in.",
                    "Return to your terminal. You can close this window.", "next"
                )
            case .failed:
                (
                    audience.failureHeading(), .failure, "The sign-in did not work.",
                    "Return to your terminal; it says what happened.", "next"
                )
            }
        let content = [
            HTMLPage.paragraph(lead, id: "device-done", class: "lead"), HTMLPage.paragraph(next, class: nextClass),
        ]
        return HTMLPage(heading: heading, tone: tone, content: content.joined(separator: "\n")).render()
    }

    /// "just now", "40 seconds ago", "3 minutes ago".
    static func ago(_ seconds: Int) -> String {
        if seconds < 5 { return "just now" }
        if seconds < 120 { return "\(seconds) seconds ago" }
        return "\(seconds / 60) minutes ago"
    }
}
