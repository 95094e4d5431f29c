import AuthHandlerCrypto
import AuthHandlerHTTP
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
    package var kind: Kind
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

    /// Creates a store config.
    package init(
        kind: Kind = .sqlite, path: String? = nil, redisAddress: RedisAddress? = nil,
        password: SecretReference? = nil, keyPrefix: String? = nil, commandTimeoutSeconds: Int? = nil
    ) {
        self.kind = kind
        self.path = path
        self.redisAddress = redisAddress
        self.password = password
        self.keyPrefix = keyPrefix
        self.commandTimeoutSeconds = commandTimeoutSeconds
    }
}
