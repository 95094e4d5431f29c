import Foundation

/// What the handler keeps between requests: which sign-in states were used, and the sealed results waiting to be
/// redeemed. Pending sign-ins are not here at all; they travel sealed in the browser's cookie (HTTP-API.md §3.1).
///
/// The store knows no flow: it keeps opaque payloads under secret keys (a `state`, an OAuth 1.0a request token, a
/// result code) and guarantees the one-time semantics the flow relies on. Implementations keep only a SHA-256 of
/// each key, and the flow hands them only sealed payloads, so a copy of the store holds nothing readable or
/// replayable.
package protocol SessionStore: Sendable {
    /// Records that the sign-in with this state (or request token) was used, until `expiresAt`; true when this
    /// call recorded it, false when it was recorded before (a replay). Atomic: of two callers, exactly one gets true.
    func recordUsedState(key: String, expiresAt: Date) async throws(StoreError) -> Bool

    /// Saves a result under a fresh one-time code.
    func insertResult(code: String, payload: [UInt8], expiresAt: Date) async throws(StoreError)

    /// Reads a result without claiming it: `.available` with its payload, `.claimed` while a redemption holds it,
    /// `.absent` when unknown, expired or redeemed.
    func peekResult(code: String, now: Date) async throws(StoreError) -> ResultLookup

    /// Claims a result for redemption: `.available` with its payload when this call claimed it, `.claimed` when
    /// another redemption holds it, `.absent` otherwise. The claim lasts until `releaseResult` or `deleteResult`, or
    /// until the result expires: a claim never lapses while the result could still be redeemed a second time.
    func claimResult(code: String, now: Date) async throws(StoreError) -> ResultLookup

    /// Ends a claim without redeeming (a transient backend failure): the result is claimable again.
    func releaseResult(code: String) async throws(StoreError)

    /// Ends a claim by redeeming: the result is gone for good.
    func deleteResult(code: String) async throws(StoreError)

    /// Deletes everything expired at `now`; returns how many rows went.
    func sweep(now: Date) async throws(StoreError) -> Int

    /// Why the store cannot serve, for `/readyz` and operators (the library's own reason, never a key or payload); nil
    /// when it can.
    func healthProblem() async -> String?
}

extension SessionStore {
    /// Whether the store can serve: no `healthProblem`.
    package func isHealthy() async -> Bool {
        await healthProblem() == nil
    }
}

/// A result looked up by its code.
package enum ResultLookup: Sendable, Equatable {
    /// Unknown, expired or already redeemed.
    case absent
    /// Held by a redemption in flight.
    case claimed
    /// Redeemable, with its (sealed) payload; after `claimResult`, claimed by this caller.
    case available([UInt8])
}
