/// A row of an import file refused (docs/ACCOUNTS.md "Imported users"): where it is (`users[12]`, `line 13`), which
/// field and why. Never the field's value: it may be a hash or an address.
package struct ImportRowError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `users[INDEX]` (0-based) of a Firebase export, `line N` (1-based) of a CSV file, or `file` for the whole file.
    package var location: String
    package var field: String
    package var reason: String

    package init(_ location: String, field: String, _ reason: String) {
        (self.location, self.field, self.reason) = (location, field, reason)
    }

    package var description: String {
        field.isEmpty ? "\(location): \(reason)" : "\(location), \(field): \(reason)"
    }
}
