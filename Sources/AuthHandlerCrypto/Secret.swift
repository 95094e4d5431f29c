/// A secret value (client secret, API key, private key) whose textual forms never show it.
///
/// `description`, `debugDescription`, `dump` and string interpolation all print `<redacted>`
/// (`Redaction.marker`); the value is only available through ``reveal()``, so every use of it is visible in review.
import AuthHandlerSystem

package struct Secret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    private let storage: String

    /// Wraps `value`.
    package init(_ value: String) {
        storage = value
    }

    /// The secret value itself; pass it straight to where it is needed, never to a log or message.
    package func reveal() -> String { storage }

    package var description: String { Redaction.marker }

    package var debugDescription: String { "Secret(\(Redaction.marker))" }

    package var customMirror: Mirror { Mirror(self, children: [:]) }
}
