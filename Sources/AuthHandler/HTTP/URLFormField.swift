/// One decoded `name=value` pair of a query string or an `application/x-www-form-urlencoded` body.
/// Kept in a list, in order, duplicates included: OAuth 1.0a signs every occurrence (RFC 5849 §3.4.1.3).
public struct URLFormField: Sendable, Hashable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

extension Array where Element == URLFormField {
    /// The first value under `name`, or nil.
    public func first(named name: String) -> String? {
        first { $0.name == name }?.value
    }

    /// Every value under `name`, in order.
    public func all(named name: String) -> [String] {
        filter { $0.name == name }.map(\.value)
    }
}
