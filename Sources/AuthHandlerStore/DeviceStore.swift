import Foundation

/// Device sign-in's records (HTTP-API.md §3.9, RFC 8628), in a protocol of their own rather than squeezed through
/// ``SessionStore``'s result codes: the sealed records a device and a browser find by their codes, the decision that
/// lets a user code be answered once, and (through ``CounterStore``, its counter part, which other limits may use on
/// their own) the wrong-code counts per address, shared by every instance on the store.
///
/// As everywhere in the store, a key is kept only as its SHA-256 (``StoreKeyDigest``) and payloads are opaque and
/// sealed by the flow, so a copy of the store holds nothing readable or replayable. Each kind of record has a namespace
/// of its own: one key may name a record of each kind.
package protocol DeviceStore: CounterStore {
    /// Keeps `payload` as the record of `kind` under `key` until `expiresAt`. `.conflict` when a record of that kind
    /// that has not expired is under the key already (a user code drawn twice): atomic, so of two callers with one key
    /// exactly one keeps its record. An expired record is replaced.
    func putDeviceRecord(kind: DeviceRecordKind, key: String, payload: [UInt8], expiresAt: Date)
        async throws(StoreError)

    /// The payload of the record of `kind` under `key`; nil when there is none or it has expired at `now`.
    func deviceRecord(kind: DeviceRecordKind, key: String, now: Date) async throws(StoreError) -> [UInt8]?

    /// Removes the record of `kind` under `key`, if any (a grant whose result was delivered).
    func deleteDeviceRecord(kind: DeviceRecordKind, key: String) async throws(StoreError)

    /// Decides `key` (a user code's confirmation) until `expiresAt`: true when this call decided it, false when it was
    /// decided before. Atomic: of two callers, exactly one gets true. An expired decision may be made again.
    func decideOnce(key: String, expiresAt: Date) async throws(StoreError) -> Bool

    /// Whether `key` was decided and the decision has not expired at `now`, without deciding it (the confirmation
    /// page's "already used").
    func isDecided(key: String, now: Date) async throws(StoreError) -> Bool
}

/// The records a device sign-in keeps (HTTP-API.md §3.9), each in its own namespace.
package enum DeviceRecordKind: String, Sendable, CaseIterable {
    /// What the polling device finds by its device code (`DeviceGrant`).
    case grant
    /// What the browser finds by its user code (`DeviceRequest`).
    case request
    /// A decline, cancellation or failure, found by the result code (`DeviceDecision`).
    case decision
}
