import Foundation

/// The one place that knows where a secret can stand in text and how it is hidden: `Secret` prints `marker`,
/// outbound request errors name a URL by its `target`, and messages that came from elsewhere (a backend's error
/// detail, libcurl's) go through `SensitiveValues.scrub` and `withoutURLSecrets`.
package enum Redaction {
    /// What stands where a secret was.
    package static let marker = "<redacted>"

    /// `url` without user info, query and fragment, which may carry secrets (an API key as `?key=`, a token, a
    /// password): scheme, host, port and path only, for messages and logs.
    package static func target(_ url: String) -> String {
        var kept = Substring(url)
        if let cut = kept.firstIndex(where: { $0 == "?" || $0 == "#" }) { kept = kept[..<cut] }
        guard let schemeEnd = kept.firstRange(of: "://") else { return String(kept) }
        let authorityStart = schemeEnd.upperBound
        let authorityEnd = kept[authorityStart...].firstIndex(of: "/") ?? kept.endIndex
        if let at = kept[authorityStart..<authorityEnd].lastIndex(of: "@") {
            return String(kept[..<authorityStart]) + String(kept[kept.index(after: at)...])
        }
        return String(kept)
    }

    /// `text` with every URL query replaced by `?<redacted>` and every user info of a URL (`://user:password@`)
    /// by `://<redacted>@`: a message such as libcurl's detail may repeat the URL it failed on.
    package static func withoutURLSecrets(_ text: String) -> String {
        text.replacing(#/\?[^\s)]+/#, with: "?" + marker).replacing(#/://[^/\s@?#]+@/#, with: "://" + marker + "@")
    }
}

/// Tokens and keys that must never reach a message: scrubs them (raw and form-encoded) from text that came
/// from elsewhere, such as a backend's error detail or a transport error, and bounds its length.
package struct SensitiveValues: Sendable {
    /// Shorter values are not scrubbed: they cannot be secrets and would mangle ordinary words.
    static let minimumLength = 4
    /// Longest reason kept from a foreign message.
    static let maximumReasonLength = 300

    private let values: [String]

    package init(_ candidates: [String?]) {
        var values = Set<String>()
        for case let value? in candidates where value.count >= Self.minimumLength {
            values.insert(value)
            values.insert(RFC3986.percentEncoded(value))
        }
        // Longest first, so a value containing another is scrubbed whole.
        self.values = values.sorted { $0.count > $1.count }
    }

    /// `text` with every sensitive value replaced by `<redacted>`, cut to `maximumReasonLength` characters.
    package func scrub(_ text: String) -> String {
        var scrubbed = text
        for value in values where scrubbed.contains(value) {
            scrubbed = scrubbed.replacingOccurrences(of: value, with: Redaction.marker)
        }
        if scrubbed.count > Self.maximumReasonLength {
            scrubbed = String(scrubbed.prefix(Self.maximumReasonLength)) + "…"
        }
        return scrubbed
    }
}
