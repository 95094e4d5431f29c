import AuthHandlerSystem
import Foundation

/// One of the pages people see (HTTP-API.md §3.7), in the shell all of them share: `lang`, a viewport for phones, the
/// embedded stylesheet (``PageStyle``), one `<main>` card with a heading, the page's own content, and an optional
/// footer. Text goes in through ``escape(_:)`` or the element helpers, which escape it.
package struct HTMLPage: Sendable {
    /// How the page's outcome is marked above its heading.
    package enum Tone: Sendable {
        /// No mark: a page that asks for something (the picker, a form).
        case neutral
        /// A check mark: the sign-in worked.
        case success
        /// An exclamation mark: the sign-in did not work.
        case failure
    }

    /// The heading, and the document's title.
    var heading: String
    var tone: Tone = .neutral
    /// The markup between the heading and the footer, already escaped.
    var content: String
    /// Small print under a rule (an error code for support), already escaped; nil for none.
    var footer: String?

    package init(heading: String, tone: Tone = .neutral, content: String, footer: String? = nil) {
        self.heading = heading
        self.tone = tone
        self.content = content
        self.footer = footer
    }

    /// The whole document.
    package func render() -> String {
        let mark =
            switch tone {
            case .neutral: ""
            case .success: #"<div class="mark good" aria-hidden="true">&#10003;</div>"# + "\n"
            case .failure: #"<div class="mark bad" aria-hidden="true">!</div>"# + "\n"
            }
        let footer = footer.map { "\n<footer>\($0)</footer>" } ?? ""
        return """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="color-scheme" content="light dark">
            <meta name="robots" content="noindex">
            <title>\(Self.escape(heading))</title>
            <style>\(PageStyle.stylesheet)</style>
            </head>
            <body>
            <main>
            \(mark)<h1>\(Self.escape(heading))</h1>
            \(content)\(footer)
            </main>
            </body>
            </html>

            """
    }

    /// Escapes text for element content and double-quoted attribute values.
    static func escape(_ text: String) -> String { ResponseRendering.htmlEscape(text) }

    /// `<p>` holding `text`, escaped, with an optional id and class.
    package static func paragraph(_ text: String, id: String? = nil, class className: String? = nil) -> String {
        "<p\(attributes(id: id, class: className))>\(escape(text))</p>"
    }

    /// ` id="…" class="…"` for the given values.
    static func attributes(id: String?, class className: String?) -> String {
        (id.map { #" id="\#(escape($0))""# } ?? "") + (className.map { #" class="\#(escape($0))""# } ?? "")
    }
}
