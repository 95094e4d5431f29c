/// A document the daemon writes as JSON: its result and error answers, the stored result and the sealed cookie, the
/// backend requests, the JWS headers and claims it signs. Each gives its members as a ``JSONValue``; the one
/// serializer, ``JSONValue/serialized(sortingKeys:)``, writes the text (RFC 8259), so no type keeps an `Encodable`
/// copy of its members and no `JSONEncoder` is configured anywhere else.
package protocol JSONWritable {
    /// The document as a JSON value, every member the documents in `docs/` name; an absent optional as `null` where
    /// they show one (HTTP-API.md §3.3), left out where they do not.
    var json: JSONValue { get }
}

/// A document the daemon reads back from JSON (its own stored forms, those of earlier releases among them): read by
/// ``JSONValue/parse(_:)`` and then checked member by member, never through `JSONDecoder`.
package protocol JSONReadable {
    /// The document in `json`; nil when a required member is missing or any member is of the wrong type.
    init?(json: JSONValue)
}

extension JSONWritable {
    /// The document as compact JSON text, members in no fixed order.
    package var serialized: [UInt8] { json.serialized(sortingKeys: false) }

    /// The document as compact JSON text; with `sortingKeys`, every object's members in the order of their names'
    /// Unicode scalars, as every JSON answer and signed document of the daemon is written.
    package func serialized(sortingKeys: Bool) -> [UInt8] { json.serialized(sortingKeys: sortingKeys) }
}

extension JSONReadable {
    /// The document in the JSON text `bytes`; nil when it is not JSON or not this document.
    package init?(parsing bytes: [UInt8]) {
        guard let json = JSONValue.parse(bytes) else { return nil }
        self.init(json: json)
    }
}

extension JSONValue: JSONWritable {
    package var json: JSONValue { self }
}
