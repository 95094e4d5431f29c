import AuthHandlerSystem
import Foundation

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
            values.insert(FormURLEncoding.percentEncode(value))
        }
        // Longest first, so a value containing another is scrubbed whole.
        self.values = values.sorted { $0.count > $1.count }
    }

    /// `text` with every sensitive value replaced by `<redacted>`, cut to `maximumReasonLength` characters.
    package func scrub(_ text: String) -> String {
        var scrubbed = text
        for value in values where scrubbed.contains(value) {
            scrubbed = scrubbed.replacingOccurrences(of: value, with: "<redacted>")
        }
        if scrubbed.count > Self.maximumReasonLength {
            scrubbed = String(scrubbed.prefix(Self.maximumReasonLength)) + "…"
        }
        return scrubbed
    }
}
