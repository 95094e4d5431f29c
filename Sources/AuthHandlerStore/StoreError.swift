/// A store failure, with the underlying library's context and never a key or payload. One type for every store
/// protocol of the package (``SessionStore``, ``CounterStore``, ``DeviceStore`` and those to come), so a caller maps
/// it to its answer in one place (the flow: `SignInFlow.storeFailure`, HTTP-API.md §5).
package struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Kind: Sendable, Equatable {
        /// The store cannot be used (cannot open, disk full, corrupt, unreachable); the flow answers 503.
        case unavailable
        /// The write would replace a record that exists under the same key: the caller draws a new key or reads the
        /// one that is there (``DeviceStore/putDeviceRecord(kind:key:payload:expiresAt:)``).
        case conflict
        /// The operation names a record that is not there, where its absence is a failure rather than an answer.
        case notFound
        /// A constraint of the store's schema refused the write; the payload names the constraint (a unique index,
        /// a foreign key), never a value.
        case constraint(String)
    }

    package let kind: Kind
    package let detail: String

    package init(_ kind: Kind, detail: String) {
        self.kind = kind
        self.detail = detail
    }

    package var description: String {
        switch kind {
        case .unavailable: "store unavailable: \(detail)"
        case .conflict: "store conflict: \(detail)"
        case .notFound: "store record not found: \(detail)"
        case .constraint(let name): "store constraint \(name) refused the write: \(detail)"
        }
    }
}
