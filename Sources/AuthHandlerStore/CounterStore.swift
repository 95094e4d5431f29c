/// Counters in fixed windows, kept in the store so that every instance on it counts together: the wrong user codes
/// entered from one client address (HTTP-API.md §3.9, RFC 8628 §5.1), which two instances on one Redis must limit as
/// one, not each on its own.
///
/// A counter lives under the SHA-256 of its key (``StoreKeyDigest``), as every key of the store does. Its first count
/// opens a window of the given length, and when the window has passed the counter is gone: the next count opens a new
/// one. A count and its answer are one atomic step, so of concurrent callers each is told a different count, and a
/// caller that counts first and then decides needs no separate check that another could slip past.
package protocol CounterStore: Sendable {
    /// Adds one to the counter `key`, opening a window of `window` when none is open, and answers the count after this
    /// call with the time left in the window.
    func incrementCounter(key: String, window: Duration) async throws(StoreError) -> CounterReading

    /// Takes back one count of the counter `key`, as a refund: a counter at 1 is removed, one whose window has passed
    /// or that does not exist is left as it is, and the window's end never moves.
    func decrementCounter(key: String) async throws(StoreError)
}

/// A counter's state after ``CounterStore/incrementCounter(key:window:)``.
package struct CounterReading: Sendable, Equatable {
    /// The count in the current window, the call's own included.
    package var count: Int
    /// How long until the window closes (more than zero): the time a caller over a limit is told to wait.
    package var remaining: Duration
}
