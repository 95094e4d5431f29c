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

    /// The confirmation page: who asked, and for what, in full: whoever asked for the code chose the auth type, the
    /// scopes it added and the custom parameters, so each is shown, the device's own choices marked as such
    /// (HTTP-API.md §3.9). Then "Continue only if you started this sign-in yourself".
    static func confirmation(_ facts: DeviceConfirmation, audience: PageAudience) -> String {
        var content = [
            HTMLPage.paragraph(summary(facts), id: "device-summary", class: "lead")
        ]
        if let consequence = consequence(of: facts.authType, providerName: facts.providerName) {
            content.append(HTMLPage.paragraph(consequence, id: "device-auth-type", class: "next"))
        }
        content += scopes(facts)
        if !facts.customParameters.isEmpty {
            content.append(
                HTMLPage.paragraph("The device also chose these settings for \(facts.providerName):"))
            content.append(
                list(
                    id: "device-parameters",
                    facts.customParameters.map {
                        "<code>\(HTMLPage.escape($0.name))</code> = <code>\(HTMLPage.escape($0.value))</code>"
                    }))
        }
        content += [
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

    /// What the device asked for, in words: "sign in with Google", "link Google to an existing account", "confirm
    /// your identity with Google".
    static func summary(_ facts: DeviceConfirmation) -> String {
        let provider = facts.providerName
        let code = facts.userCode
        return switch facts.authType {
        case .signInViaRedirect: "A device asked to sign in with \(provider) using code \(code)."
        case .linkViaRedirect: "A device asked to link \(provider) to an existing account using code \(code)."
        case .reauthViaRedirect: "A device asked you to confirm your identity with \(provider) using code \(code)."
        }
    }

    /// What a link or a reauthentication does beyond a sign-in, said before anything else is; nil for a sign-in.
    static func consequence(of authType: AuthType, providerName provider: String) -> String? {
        switch authType {
        case .signInViaRedirect:
            nil
        case .linkViaRedirect:
            "This adds the \(provider) account you choose to an account that is already signed in on that device: "
                + "signing in with that \(provider) account will then open that account. Continue only if that "
                + "account is yours."
        case .reauthViaRedirect:
            "This confirms that you are the person signed in on that device, so that it can make a sensitive change "
                + "to that account. Continue only if that account is yours."
        }
    }

    /// The scopes: the provider's configured ones as they are, then each the device added, marked as the device's.
    static func scopes(_ facts: DeviceConfirmation) -> [String] {
        guard !facts.configuredScopes.isEmpty || !facts.requestedScopes.isEmpty else {
            return [HTMLPage.paragraph("It asks for no extra permissions.", class: "muted")]
        }
        let configured = facts.configuredScopes.map { "<code>\(HTMLPage.escape($0))</code>" }
        let requested = facts.requestedScopes.map { "<code>\(HTMLPage.escape($0))</code> (requested by the device)" }
        return [
            HTMLPage.paragraph("It asks \(facts.providerName) for:"), list(id: "device-scopes", configured + requested),
        ]
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

    /// `<ul>` of `items`, each already escaped.
    private static func list(id: String, _ items: [String]) -> String {
        "<ul\(HTMLPage.attributes(id: id, class: nil))>" + items.map { "<li>\($0)</li>" }.joined() + "</ul>"
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
