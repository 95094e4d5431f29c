import Synchronization

/// At most `maximum` outbound calls at once (the OAuth 1.0a request-token call at start, a callback's exchange with
/// the provider), so a burst of sign-ins cannot tie up every connection and task on a slow provider.
///
/// Non-blocking: a caller that gets no permit answers at once (`429` or `503`) rather than queueing.
package final class OutboundCallLimit: Sendable {
    /// How many calls may run at once.
    package let maximum: Int
    private let running = Mutex(0)

    /// - Parameter maximum: at least 1; smaller values are raised to 1.
    package init(maximum: Int) {
        self.maximum = max(1, maximum)
    }

    /// Takes a permit when fewer than `maximum` are out; false otherwise. Pair every true with ``release()``.
    package func tryAcquire() -> Bool {
        running.withLock { count in
            guard count < maximum else { return false }
            count += 1
            return true
        }
    }

    /// Returns a permit taken by ``tryAcquire()``. An unmatched release is ignored (never goes below zero).
    package func release() {
        running.withLock { count in count = max(0, count - 1) }
    }

    /// How many permits are out now.
    package var inUse: Int { running.withLock { $0 } }

    /// Runs `body` holding a permit; nil without running it when none is free.
    package func withPermit<T>(_ body: () async throws -> T) async rethrows -> T? {
        guard tryAcquire() else { return nil }
        defer { release() }
        return try await body()
    }
}
