/// One decoded `name=value` pair of a query string or an `application/x-www-form-urlencoded` body.
/// Kept in a list, in order, duplicates included: OAuth 1.0a signs every occurrence (RFC 5849 §3.4.1.3).

package struct URLFormField: Sendable, Hashable {
    package var name: String
    package var value: String

    package init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

extension Array where Element == URLFormField {
    /// The first value under `name`, or nil.
    package func first(named name: String) -> String? {
        first { $0.name == name }?.value
    }

    /// Every value under `name`, in order.
    package func all(named name: String) -> [String] {
        filter { $0.name == name }.map(\.value)
    }
}
