/// Where pending sign-ins and results are kept: `store` in the config.
public struct StoreConfig: Sendable, Hashable, Codable {
    /// The storage engine.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// An SQLite file; survives restarts.
        case sqlite
        /// Process memory; lost on exit.
        case memory
    }

    /// The storage engine; `sqlite` by default.
    public var kind: Kind
    /// The SQLite file; nil means `$STATE_DIRECTORY/state.sqlite`. Absolute after loading.
    public var path: String?

    /// Creates a store config.
    public init(kind: Kind = .sqlite, path: String? = nil) {
        self.kind = kind
        self.path = path
    }
}
