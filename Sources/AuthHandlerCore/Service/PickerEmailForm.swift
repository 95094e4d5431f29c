import AuthHandlerHTTP

/// The picker's e-mail entry (HTTP-API.md §3.6), FirebaseUI's shape without identifier-first: e-mail and password with
/// "Sign in", a link to "Create account" (name, e-mail, new password) and "Forgot password?". Plain HTML forms that
/// post to `signin/email` (relative to the picker, so `/__/auth/signin/email`), and links between the screens, so it
/// works with JavaScript off and under the pages' CSP, which admits no script.
///
/// The e-mail address is never checked on its own before a password is entered (that would tell who has an account;
/// Firebase turned such lookups off in 2023), and a password is never put back into a page.
struct PickerEmailForm {
    enum Screen: String, CaseIterable {
        case signIn = "sign-in"
        case signUp = "sign-up"
        case reset
    }

    /// A refusal shown above the form: its §5 code and the sentence for people.
    struct Problem {
        var code: String
        var text: String
    }

    var screen: Screen
    /// The CSRF token bound to this browser's cookie (``PickerCSRF``).
    var csrfToken: String
    /// The picker's own parameters (the carried start parameters and `providers`), carried into every form and link.
    var carried: [URLFormField]
    /// The address the person typed, kept when the form comes back with an error.
    var email: String? = nil
    var displayName: String? = nil
    var problem: Problem? = nil
    /// The password policy's minimum length, for the new-password field.
    var minimumLength: Int
    /// Set on the page after a reset request: the address the link was (perhaps) sent to.
    var resetSentTo: String? = nil
    /// The way from the page's path to the picker's directory, which its relative links start from: empty at
    /// `/__/auth/signin`, `../` at `/__/auth/signin/email` (the page a POST answered).
    var base = ""
    /// On the account-exists page: its link token (``PickerState/linkToken``), the sign-in form's `link` field that
    /// makes its sign-in the explicit link step; nil on any other form.
    var link: String? = nil

    func render() -> String {
        var parts = [#"<section class="email-entry" aria-label="E-mail and password">"#]
        if let problem {
            parts.append(
                #"<p role="alert" id="email-error" class="next" data-code="\#(HTMLPage.escape(problem.code))">"#
                    + HTMLPage.escape(problem.text) + "</p>")
        }
        if let resetSentTo {
            parts += [
                HTMLPage.paragraph(
                    "If \(resetSentTo) has an account, we sent it a link to choose a new password. Follow it, then "
                        + "sign in.", id: "reset-sent", class: "lead"),
                link("sign-in-link", screen: .signIn, "Back to sign in"),
                "</section>",
            ]
            return parts.joined(separator: "\n")
        }
        parts += [
            #"<form method="post" action="\#(HTMLPage.escape(base))signin/email" id="email-form">"#,
            hidden("csrf", csrfToken),
            hidden("intent", screen.rawValue),
        ]
        if screen == .signIn, let link { parts.append(hidden("link", link)) }
        parts += carried.map { hidden($0.name, $0.value) }
        switch screen {
        case .signIn:
            parts += emailField() + passwordField(new: false) + [button("Sign in"), "</form>"]
            parts += [
                link("forgot-password", screen: .reset, "Forgot password?"),
                link("create-account", screen: .signUp, "Create account"),
            ]
        case .signUp:
            parts += [
                #"<label for="displayName">Name</label>"#,
                #"<input id="displayName" name="displayName" type="text" autocomplete="name" maxlength="256""#
                    + value(displayName) + ">",
            ]
            parts += emailField() + passwordField(new: true) + [button("Create account"), "</form>"]
            parts.append(link("sign-in-link", screen: .signIn, "I have an account: sign in"))
        case .reset:
            parts += [
                HTMLPage.paragraph("We will e-mail you a link to choose a new password.", class: "muted")
            ]
            parts += emailField() + [button("Send the link"), "</form>"]
            parts.append(link("sign-in-link", screen: .signIn, "Back to sign in"))
        }
        parts.append("</section>")
        return parts.joined(separator: "\n")
    }

    private func emailField() -> [String] {
        [
            #"<label for="email">E-mail</label>"#,
            #"<input id="email" name="email" type="email" autocomplete="email" maxlength="1024" required"#
                + value(email) + ">",
        ]
    }

    private func passwordField(new: Bool) -> [String] {
        let name = new ? "newPassword" : "password"
        var field = [
            #"<label for="\#(name)">\#(new ? "New password" : "Password")</label>"#,
            #"<input id="\#(name)" name="\#(name)" type="password" "#
                + #"autocomplete="\#(new ? "new-password" : "current-password")" maxlength="256" required"#
                + (new ? #" minlength="\#(minimumLength)""# : "") + ">",
        ]
        if new { field.append(HTMLPage.paragraph("At least \(minimumLength) characters.", class: "muted")) }
        return field
    }

    private func button(_ label: String) -> String {
        #"<button class="primary" id="email-submit" type="submit">\#(HTMLPage.escape(label))</button>"#
    }

    /// A link to another screen: the picker with the same parameters and `screen`.
    private func link(_ id: String, screen: Screen, _ label: String) -> String {
        let href =
            base + "signin?" + FormURLEncoding.encode(carried + [URLFormField(name: "screen", value: screen.rawValue)])
        return #"<p><a id="\#(id)" href="\#(HTMLPage.escape(href))">\#(HTMLPage.escape(label))</a></p>"#
    }

    private func hidden(_ name: String, _ value: String) -> String {
        #"<input type="hidden" name="\#(HTMLPage.escape(name))" value="\#(HTMLPage.escape(value))">"#
    }

    private func value(_ text: String?) -> String {
        text.map { #" value="\#(HTMLPage.escape($0))""# } ?? ""
    }
}
