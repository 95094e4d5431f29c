import AuthHandlerSystem
import Foundation
import Synchronization

/// Limits starts and callbacks that call the provider, per client, with a token bucket (HTTP-API.md §2.4
/// `startRateLimit`, §3.1 and §3.2 `429 too-many-requests`).
///
/// Each client has a bucket of `burst` tokens that refills at `perMinute / 60` tokens a second; a start
/// takes one token, and a client with none is told how long until it has one (`Retry-After`, RFC 9110
/// §10.2.3, whole seconds rounded up, at least 1).
///
/// Memory is bounded: a bucket that has refilled to `burst` carries no information and is dropped (swept
/// every `sweepInterval`, and when the table is full, at most once a second). When `maxClients` buckets are still in use after
/// a sweep — many addresses at once, an attack or a very large NAT — a client without a bucket is not
/// tracked alone but charged to one shared overflow bucket of the same size. So tracked clients keep
/// their own allowance, and the flood of new addresses together gets one client's worth, instead of
/// either locking everyone new out or letting the flood through unlimited.
package final class StartRateLimiter: Sendable {
    /// The answer for one start.
    package enum Admission: Sendable, Hashable {
        /// Go ahead.
        case allowed
        /// Refuse with `429` and `Retry-After: retryAfterSeconds` (≥ 1).
        case limited(retryAfterSeconds: Int)
    }

    private struct Bucket {
        var tokens: Double
        var updated: Date
    }

    private struct State {
        var buckets: [String: Bucket] = [:]
        var overflow: Bucket?
        var lastSweep: Date
    }

    /// The bucket capacity.
    package let burst: Int
    /// Tokens added per second.
    package let refillPerSecond: Double
    /// The most clients tracked one by one.
    package let maxClients: Int
    private let sweepInterval: TimeInterval
    private let now: WallClock
    private let state: Mutex<State>

    /// - Parameters:
    ///   - limit: `startRateLimit`; values below 1 are raised to 1.
    ///   - maxClients: the hard cap on tracked clients (default 100,000, a few MB).
    ///   - sweepInterval: how often refilled buckets are dropped (default 60 s).
    ///   - now: the clock, injected so tests can move time.
    package init(
        _ limit: StartRateLimit, maxClients: Int = 100_000, sweepInterval: TimeInterval = 60,
        now: @escaping WallClock = systemWallClock
    ) {
        burst = max(1, limit.burst)
        refillPerSecond = Double(max(1, limit.perMinute)) / 60
        self.maxClients = max(1, maxClients)
        self.sweepInterval = sweepInterval
        self.now = now
        state = Mutex(State(lastSweep: now()))
    }

    /// Takes a token for `client` (use ``ClientAddress/rateLimitKey(_:)``) if it has one.
    package func admit(_ client: String) -> Admission {
        let current = now()
        return state.withLock { state in
            let sinceSweep = current.timeIntervalSince(state.lastSweep)
            // A full table is swept at most once a second: under a flood of new addresses a sweep per
            // request would cost O(maxClients) each.
            if sinceSweep >= sweepInterval
                || (state.buckets[client] == nil && state.buckets.count >= maxClients && sinceSweep >= 1)
            {
                sweep(&state, at: current)
            }
            if var bucket = state.buckets[client] {
                let admission = take(&bucket, at: current)
                state.buckets[client] = bucket
                return admission
            }
            if state.buckets.count < maxClients {
                var bucket = Bucket(tokens: Double(burst), updated: current)
                let admission = take(&bucket, at: current)
                state.buckets[client] = bucket
                return admission
            }
            var overflow = state.overflow ?? Bucket(tokens: Double(burst), updated: current)
            let admission = take(&overflow, at: current)
            state.overflow = overflow
            return admission
        }
    }

    /// How many clients have a bucket of their own now (for tests and metrics).
    package var trackedClients: Int { state.withLock { $0.buckets.count } }

    private func take(_ bucket: inout Bucket, at current: Date) -> Admission {
        refill(&bucket, at: current)
        if bucket.tokens >= 1 {
            bucket.tokens -= 1
            return .allowed
        }
        let seconds = ((1 - bucket.tokens) / refillPerSecond).rounded(.up)
        return .limited(retryAfterSeconds: max(1, Int(min(seconds, Double(Int32.max)))))
    }

    private func refill(_ bucket: inout Bucket, at current: Date) {
        // A clock that steps back adds nothing (and does not take tokens away).
        let elapsed = max(0, current.timeIntervalSince(bucket.updated))
        bucket.tokens = min(Double(burst), bucket.tokens + elapsed * refillPerSecond)
        bucket.updated = max(bucket.updated, current)
    }

    private func sweep(_ state: inout State, at current: Date) {
        state.lastSweep = current
        let capacity = Double(burst)
        state.buckets = state.buckets.filter { _, bucket in
            var refilled = bucket
            refill(&refilled, at: current)
            return refilled.tokens < capacity
        }
        if var overflow = state.overflow {
            refill(&overflow, at: current)
            state.overflow = overflow.tokens < capacity ? overflow : nil
        }
    }
}
