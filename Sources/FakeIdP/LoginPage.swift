import AuthHandlerCore

/// The fake IdP's HTML login page: a user name field, Approve and Deny, every echoed value escaped.
enum LoginPage {
    /// Escapes text for an HTML element body or a double-quoted attribute value.
    static func escape(_ text: String) -> String {
        ResponseRendering.htmlEscape(text)
    }

    /// A page that posts `hidden` back to `action` with the typed `user` and the button pressed (`decision`).
    static func render(title: String, action: String, hidden: [(name: String, value: String)], hint: String?) -> String
    {
        let fields = hidden.map { field in
            "<input type=\"hidden\" name=\"\(escape(field.name))\" value=\"\(escape(field.value))\">"
        }.joined(separator: "\n      ")
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>\(escape(title))</title></head>
            <body>
              <h1>\(escape(title))</h1>
              <p>auth-handler fake IdP — not a real provider. Users: see the fake IdP's configuration.</p>
              <form method="post" action="\(escape(action))">
                \(fields)
                <label>User name <input id="user" name="user" value="\(escape(hint ?? ""))" autofocus></label>
                <button id="approve" type="submit" name="decision" value="approve">Approve</button>
                <button id="deny" type="submit" name="decision" value="deny">Deny</button>
              </form>
            </body></html>
            """
    }

    /// An auto-submitting form that delivers an authorization response by POST (`response_mode=form_post`).
    static func formPost(to action: String, fields: [(name: String, value: String)]) -> String {
        let inputs = fields.map { field in
            "<input type=\"hidden\" name=\"\(escape(field.name))\" value=\"\(escape(field.value))\">"
        }.joined(separator: "\n    ")
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>Submit this form</title></head>
            <body onload="document.forms[0].submit()">
              <form method="post" action="\(escape(action))">
                \(inputs)
                <noscript><button type="submit">Continue</button></noscript>
              </form>
            </body></html>
            """
    }
}
