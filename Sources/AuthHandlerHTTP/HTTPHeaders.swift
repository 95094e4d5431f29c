/// An ordered list of HTTP header fields with case-insensitive name lookup (RFC 9110 §5.1).
package struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// One header field as sent or received; the name keeps its original spelling.
    package struct Field: Sendable, Hashable {
        package var name: String
        package var value: String
    }

    /// The fields in order, duplicates included.
    package private(set) var fields: [Field]

    package init(_ fields: [Field] = []) {
        self.fields = fields
    }

    package init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    /// The first value under `name` (any case), or nil.
    package subscript(name: String) -> String? {
        fields.first { Self.namesMatch($0.name, name) }?.value
    }

    /// Every value under `name` (any case), in order.
    package func values(for name: String) -> [String] {
        fields.filter { Self.namesMatch($0.name, name) }.map(\.value)
    }

    /// Appends a field, keeping any existing ones with the same name.
    package mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field named `name` (any case) with one field.
    package mutating func set(name: String, value: String) {
        remove(name: name)
        add(name: name, value: value)
    }

    /// Removes every field named `name` (any case).
    package mutating func remove(name: String) {
        fields.removeAll { Self.namesMatch($0.name, name) }
    }

    package var isEmpty: Bool { fields.isEmpty }

    package func makeIterator() -> IndexingIterator<[Field]> {
        fields.makeIterator()
    }

    /// Whether a name or value contains CR, LF or NUL, which would let it inject further header lines.
    static func containsLineBreak(_ text: String) -> Bool {
        text.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }
    }

    private static func namesMatch(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.count == rhs.utf8.count && lhs.lowercased() == rhs.lowercased()
    }
}
