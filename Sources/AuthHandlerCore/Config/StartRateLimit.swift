/// `startRateLimit` in the config (HTTP-API.md §2.4): a token bucket per client address for starts that must
/// call the provider first.
package struct StartRateLimit: Sendable, Hashable {
    /// Sustained starts per minute per client (the bucket's refill rate).
    package var perMinute: Int
    /// Starts a client may make at once before the rate applies (the bucket's capacity).
    package var burst: Int

    /// The documented default: 30 per minute, bursts of 10.
    package static let `default` = StartRateLimit(perMinute: 30, burst: 10)

    /// Creates a limit.
    package init(perMinute: Int, burst: Int) {
        self.perMinute = perMinute
        self.burst = burst
    }
}
