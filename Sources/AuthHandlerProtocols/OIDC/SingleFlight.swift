/// The fetches of a cache that are running, one per key, so that concurrent callers who miss the cache for one
/// key share a single request (single flight) instead of each starting their own. The owning actor starts a
/// fetch as a `Task` that stores its result in the cache and calls `end` before it returns, so every caller that
/// awaits it finds the cache updated.
struct SingleFlight<Key: Hashable, Value: Sendable, Failure: Error> {
    typealias Fetch = Task<Result<Value, Failure>, Never>

    private var running: [Key: Fetch] = [:]

    /// Whether a fetch for `key` is running (a caller may join it).
    func isRunning(_ key: Key) -> Bool {
        running[key] != nil
    }

    /// The fetch running for `key`, or the one `start` starts when none is; the caller awaits its result.
    mutating func join(_ key: Key, orStart start: () -> Fetch) -> Fetch {
        if let running = running[key] { return running }
        let fetch = start()
        running[key] = fetch
        return fetch
    }

    /// Forgets the fetch for `key`, which has finished.
    mutating func end(_ key: Key) {
        running[key] = nil
    }
}
