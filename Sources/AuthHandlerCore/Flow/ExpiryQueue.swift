/// Keys in the order they expire: a binary min-heap on the expiry, so adding a key and taking the next expired one
/// cost O(log n) however many are queued.
///
/// It holds what was pushed and nothing more: a key the owner forgot or replaced stays queued under its old expiry
/// until popped, and the owner tells a stale entry from a live one by comparing the expiry with its own record.
struct ExpiryQueue<Key> {
    private var entries: [(expires: Duration, key: Key)] = []

    /// How many entries are queued, stale ones included.
    var count: Int { entries.count }

    /// Queues `key` to expire at `expires`.
    mutating func push(_ key: Key, expires: Duration) {
        entries.append((expires, key))
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].expires < entries[parent].expires else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    /// Takes the entry that expires first if it has expired at `current`; nil when none has.
    mutating func popExpired(at current: Duration) -> (expires: Duration, key: Key)? {
        guard let first = entries.first, first.expires <= current else { return nil }
        let last = entries.removeLast()
        guard !entries.isEmpty else { return first }
        entries[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < entries.count, entries[left].expires < entries[smallest].expires { smallest = left }
            if right < entries.count, entries[right].expires < entries[smallest].expires { smallest = right }
            guard smallest != parent else { break }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
        return first
    }

    /// Replaces the queue with exactly `live`, dropping every stale entry; O(n log n), for the owner to call only when
    /// stale entries have come to outnumber live ones, so that its cost is spread over the pushes that made them.
    mutating func rebuild(from live: [(expires: Duration, key: Key)]) {
        entries.removeAll(keepingCapacity: true)
        for entry in live { push(entry.key, expires: entry.expires) }
    }
}
