import Foundation

/// The page of `GET /__/auth/signin` (HTTP-API.md §3.6): one link per provider, each a start with the picker's
/// parameters, and with the accounts backend the e-mail entry (``PickerEmailForm``).
///
/// Each link is `<a data-provider-id="ID" href="handler?providerId=ID&…">`: relative to the picker's own path, so it
/// reaches `/__/auth/handler` wherever the daemon is served from, behind a proxy on the app's origin too. A button
/// bears the provider's name in words and no logo (HTTP-API.md §3.6).
enum SignInPickerPage {
    /// `email.base` is the way from the page's own path to the picker's directory: a page the e-mail form's POST
    /// answered is one level deeper (`/__/auth/signin/email`).
    ///
    /// `viaPicker` (backend `accounts`): each button starts at `signin/provider` (HTTP-API.md §3.6), so the picker
    /// redeems the provider's result and can offer the account-exists link; `notice` is a paragraph above the choices.
    static func render(
        _ choices: [PickerChoice], audience: PageAudience, email: PickerEmailForm? = nil, viaPicker: Bool = false,
        base: String = "", notice: String? = nil
    ) -> String {
        var content: [String] = []
        if let notice { content.append(HTMLPage.paragraph(notice, id: "account-exists", class: "lead")) }
        let target = (email?.base ?? base) + (viaPicker ? "signin/provider?" : "handler?")
        if email?.screen ?? .signIn == .signIn {
            if !choices.isEmpty {
                let links = choices.map { choice in
                    let href = target + choice.startQuery
                    return #"<li><a class="choice" data-provider-id="\#(HTMLPage.escape(choice.providerID))" "#
                        + #"href="\#(HTMLPage.escape(href))">Continue with \#(HTMLPage.escape(choice.displayName))"#
                        + "</a></li>"
                }
                let destination = audience.productName.map { "come back to \($0)" } ?? "come back to the app"
                content += [
                    HTMLPage.paragraph(
                        notice == nil ? "Choose how you would like to sign in." : "Continue with:", class: "lead"),
                    #"<ul class="choices" aria-label="Ways to sign in">"#,
                    links.joined(separator: "\n"),
                    "</ul>",
                    HTMLPage.paragraph(
                        "You will sign in on the page of the service you choose, then \(destination).", class: "muted"),
                ]
            }
        }
        if let email { content.append(email.render()) }
        let heading =
            switch email?.screen {
            case .signUp: "Create account"
            case .reset: "Reset your password"
            default: audience.signInHeading()
            }
        return HTMLPage(heading: heading, content: content.joined(separator: "\n")).render()
    }
}
