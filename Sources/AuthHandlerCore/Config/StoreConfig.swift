import AuthHandlerStore

/// Where pending sign-ins and results are kept: `store` in the config.
package struct StoreConfig: Sendable, Hashable, Codable {
    /// The storage engine.
    package enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// An SQLite file; survives restarts.
        case sqlite
        /// Process memory; lost on exit.
        case memory
        /// A Redis server shared by several instances (docs/CONFIG.md, `store`).
        case redis
    }

    /// The storage engine; `sqlite` by default.
    package var kind: Kind = .sqlite
    /// The SQLite file; nil means `$STATE_DIRECTORY/state.sqlite`. Absolute after loading.
    package var path: String?
    /// Redis: where to connect (`url`); required with kind `redis`, nil otherwise.
    package var redisAddress: RedisAddress?
    /// Redis: the password for `AUTH` (`password`).
    package var password: SecretReference?
    /// Redis: what every key starts with (`keyPrefix`); nil means ``RedisSessionStore/defaultKeyPrefix``.
    package var keyPrefix: String?
    /// Redis: how long an operation may take, in seconds (`commandTimeoutSeconds`); nil means
    /// ``RedisSessionStore/defaultCommandTimeout``.
    package var commandTimeoutSeconds: Int?

    /// The longest `commandTimeoutSeconds` accepted: beyond it a stalled Redis holds a sign-in longer than a user waits.
    package static let maximumCommandTimeoutSeconds = 60
}

/// Declared apart so that the memberwise initialiser stays for this module.
extension StoreConfig {
    /// A store of `kind` with its defaults (the commands ask for a memory store this way).
    package init(kind: Kind) {
        self.kind = kind
    }
}
