/// A secret value (client secret, API key, private key) whose textual forms never show it.
///
/// `description`, `debugDescription`, `dump` and string interpolation all print `<redacted>`;
/// the value is only available through ``reveal()``, so every use of it is visible in review.
public struct Secret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    private let storage: String

    /// Wraps `value`.
    public init(_ value: String) {
        storage = value
    }

    /// The secret value itself; pass it straight to where it is needed, never to a log or message.
    public func reveal() -> String { storage }

    public var description: String { "<redacted>" }

    public var debugDescription: String { "Secret(<redacted>)" }

    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
