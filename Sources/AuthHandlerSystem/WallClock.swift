import Foundation

/// Wall time as the product reads it: wherever a time is compared with one another party wrote or will read — an ID
/// token's `iat` and `exp`, the expiry sealed into a cookie or kept in a store, a webhook's timestamp, a client
/// secret's lifetime. Every such reader takes one as `now`, so that tests move time instead of waiting
/// (docs/ARCHITECTURE.md "Time").
///
/// Elapsed time — a latency, a back-off, a request's deadline, a poll interval — is measured on a monotonic `Clock`
/// (`ContinuousClock`) instead, which the wall clock's steps cannot move; and a span of either is a `Duration`.
package typealias WallClock = @Sendable () -> Date

/// The machine's wall clock, `Date()`.
package let systemWallClock: WallClock = { Date() }
