extension KeyedEncodingContainer {
    /// Encodes `members` in order, an absent one as JSON `null` rather than leaving it out: the result and webhook
    /// documents carry every member, as HTTP-API.md §3.3 shows them.
    mutating func encodeMembers(_ members: KeyValuePairs<Key, (any Encodable)?>) throws {
        for (key, value) in members {
            if let value {
                try encode(value, forKey: key)
            } else {
                try encodeNil(forKey: key)
            }
        }
    }
}
