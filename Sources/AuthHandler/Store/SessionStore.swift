import Foundation

/// Where pending sign-ins and unredeemed results live between requests.
///
/// The store knows no flow: it keeps opaque payloads under secret keys (a `state`, an OAuth 1.0a request
/// token, a result code) and guarantees the one-time semantics the flow relies on. Implementations keep
/// only a SHA-256 of each key, so a copy of the store holds nothing that can be replayed.
public protocol SessionStore: Sendable {
    /// Saves a pending sign-in; throws `StoreError.capacityReached` when `maxPending` unexpired ones exist.
    func insertPending(key: String, payload: [UInt8], expiresAt: Date) async throws(StoreError)

    /// Removes and returns a pending sign-in; nil when unknown, already consumed or expired at `now`.
    /// Atomic: of two callers with the same key, exactly one gets the payload.
    func consumePending(key: String, now: Date) async throws(StoreError) -> [UInt8]?

    /// Saves a result under a fresh one-time code.
    func insertResult(code: String, payload: [UInt8], expiresAt: Date) async throws(StoreError)

    /// Claims a result for redemption: returns its payload and hides it from other claims for `lease`
    /// seconds; nil when unknown, expired, redeemed or claimed by a redemption still in flight.
    func claimResult(code: String, now: Date, lease: TimeInterval) async throws(StoreError) -> [UInt8]?

    /// Ends a claim without redeeming (a transient backend failure): the result is claimable again.
    func releaseResult(code: String) async throws(StoreError)

    /// Ends a claim by redeeming: the result is gone for good.
    func deleteResult(code: String) async throws(StoreError)

    /// Deletes everything expired at `now`; returns how many rows went.
    func sweep(now: Date) async throws(StoreError) -> Int

    /// Unexpired pending sign-ins at `now` (the `pending sessions` gauge).
    func pendingCount(now: Date) async throws(StoreError) -> Int

    /// Whether the store can serve (for `/readyz`).
    func isHealthy() async -> Bool
}

/// A store failure, with the underlying library's context and never a key or payload.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The bound on pending sign-ins is reached; the flow answers 503.
        case capacityReached
        /// The store cannot be used (cannot open, disk full, corrupt); the flow answers 503.
        case unavailable
    }

    public let kind: Kind
    public let detail: String

    public init(_ kind: Kind, detail: String) {
        self.kind = kind
        self.detail = detail
    }

    public var description: String {
        switch kind {
        case .capacityReached: "too many sign-ins in progress: \(detail)"
        case .unavailable: "session store unavailable: \(detail)"
        }
    }
}
