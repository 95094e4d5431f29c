import AuthHandlerHTTP
import AuthHandlerStore

/// Where used states and sealed results are kept: `store` in the config (CONFIG.md `store`, HTTP-API.md §2.5), one
/// case per `kind`, each with the settings that kind reads.
package enum StoreConfig: Sendable, Hashable {
    /// Process memory; lost on exit.
    case memory
    /// An SQLite file; survives restarts.
    case sqlite(SQLiteStoreConfig)
    /// A Redis server shared by several instances.
    case redis(RedisStoreConfig)

    /// The `kind` member: what the config writes for each case.
    package enum Kind: String, Sendable, Hashable, CaseIterable {
        case sqlite
        case memory
        case redis
    }

    /// `serve`'s store when the config has none: SQLite at the default path.
    package static let `default` = StoreConfig.sqlite(SQLiteStoreConfig())

    /// The section's keys as CONFIG.md `store` lists them: `kind` and every key some kind reads.
    static let keys = ["kind", "path", "url", "password", "keyPrefix", "commandTimeoutSeconds"]

    /// Which kind this is.
    package var kind: Kind {
        switch self {
        case .memory: .memory
        case .sqlite: .sqlite
        case .redis: .redis
        }
    }

    /// The store to open: this one, or the memory store where `defaultKind` is memory (`--once`, `demo`) and this is
    /// the SQLite store without a `path`, the default (CONFIG.md `store`: "`--once` uses `memory`").
    package func opened(defaultKind: Kind) -> StoreConfig {
        guard defaultKind == .memory, case .sqlite(let sqlite) = self, sqlite.path == nil else { return self }
        return .memory
    }

    /// Opens the store this config names, and says the SQLite file's path when it is one (`serve` keeps its
    /// generated state key beside it, HTTP-API.md §2.3).
    package func makeStore(environment: SecretEnvironment) throws(StoreSetupError) -> (
        store: any SessionStore & DeviceStore, sqlitePath: String?
    ) {
        switch self {
        case .memory: (MemorySessionStore(), nil)
        case .sqlite(let config): try config.makeStore(environment: environment)
        case .redis(let config): (try config.makeStore(environment: environment), nil)
        }
    }

    /// Validates `store`; each kind's payload reads its own keys, and the others are warned about. Also answers the
    /// kind read, which the top level checks `stateKey` against even when the payload had errors.
    static func validating(_ value: JSONValue, at path: ConfigPath, by validator: inout ConfigValidator) -> (
        kind: Kind, config: StoreConfig
    ) {
        guard let fields = validator.object(value, at: path, allowedKeys: keys) else { return (.sqlite, .default) }
        let kind: Kind = validator.kind(fields, at: path) ?? .sqlite
        switch kind {
        case .memory:
            validator.warnIgnored(in: fields, sectionKeys: keys, read: [], kind: kind, at: path)
            return (kind, .memory)
        case .sqlite:
            return (kind, .sqlite(SQLiteStoreConfig(validating: fields, at: path, by: &validator)))
        case .redis:
            // A Redis store with errors stands as the default: the report refuses the config anyway.
            return (kind, RedisStoreConfig(validating: fields, at: path, by: &validator).map(Self.redis) ?? .default)
        }
    }
}

/// Why the configured store cannot be opened; names the config key or the file, never a secret's value.
package enum StoreSetupError: Error, Sendable, CustomStringConvertible {
    /// The SQLite file could not be opened or created.
    case sqliteUnopenable(path: String, StoreError)
    /// `store.password` could not be read.
    case unresolvablePassword(SecretResolutionError)
    /// The Redis store could not be set up (it does not connect yet).
    case redisUnavailable(StoreError)

    package var description: String {
        switch self {
        case .sqliteUnopenable(let path, let error):
            "cannot open the session store \(path): \(error); set store.path or $STATE_DIRECTORY"
        case .unresolvablePassword(let error): "store.password: \(error); run check-config"
        case .redisUnavailable(let error): "cannot set up the Redis store: \(error)"
        }
    }
}
