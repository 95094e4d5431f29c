import AuthHandlerSystem
import Foundation
import Synchronization

/// How many password hashes a client may cause (`password.rateLimit`; issue 25 §3 "Hashing is a budget"): a token
/// bucket per ``ClientKey`` of `burst` tokens refilling at `perMinute / 60` a second. Every request that will hash —
/// sign-in, sign-up, password change, reauth — takes a token before any hashing (``PasswordHasher`` takes it), and a
/// client with none gets `429 too-many-requests` with `Retry-After`, answered without hashing.
///
/// Memory is bounded as for the start rate limit: a bucket that has refilled to `burst` says nothing and is dropped
/// (swept every `sweepInterval`, and when the table is full, at most once a second). At most `maxClients` buckets
/// (default 100,000, a few MB) are kept; when that many are still in use, a client without a bucket is charged to
/// one shared overflow bucket of the same size, so a flood of new addresses gets one client's allowance together
/// while clients already tracked keep theirs.
package final class HashingBudget: Sendable {
    /// The answer for one request that will hash.
    package enum Admission: Sendable, Hashable {
        /// Go ahead; a token was taken.
        case allowed
        /// `429 too-many-requests` with `Retry-After: retryAfterSeconds` (≥ 1; RFC 9110 §10.2.3).
        case limited(retryAfterSeconds: Int)
    }

    private struct Bucket {
        var tokens: Double
        var updated: Date
    }

    private struct State {
        var buckets: [ClientKey: Bucket] = [:]
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
    ///   - perMinute: tokens added a minute (`password.rateLimit.perMinute`, default 10); at least 1.
    ///   - burst: the bucket's size (`password.rateLimit.burst`, default 5); at least 1.
    ///   - maxClients: the cap on buckets kept (default 100,000).
    ///   - sweepInterval: how often full buckets are dropped (default 60 s).
    ///   - now: the clock, injected so that tests move time.
    package init(
        perMinute: Int = 10, burst: Int = 5, maxClients: Int = 100_000, sweepInterval: TimeInterval = 60,
        now: @escaping WallClock = systemWallClock
    ) {
        self.burst = max(1, burst)
        refillPerSecond = Double(max(1, perMinute)) / 60
        self.maxClients = max(1, maxClients)
        self.sweepInterval = sweepInterval
        self.now = now
        state = Mutex(State(lastSweep: now()))
    }

    /// Takes a token for `client` if it has one.
    package func take(for client: ClientKey) -> Admission {
        let current = now()
        return state.withLock { state in
            let sinceSweep = current.timeIntervalSince(state.lastSweep)
            // A full table is swept at most once a second, not once per request of a flood.
            if sinceSweep >= sweepInterval
                || (state.buckets[client] == nil && state.buckets.count >= maxClients && sinceSweep >= 1)
            {
                sweep(&state, at: current)
            }
            if state.buckets[client] != nil || state.buckets.count < maxClients {
                var bucket = state.buckets[client] ?? Bucket(tokens: Double(burst), updated: current)
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
        // A clock that steps back adds nothing and takes nothing away.
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
