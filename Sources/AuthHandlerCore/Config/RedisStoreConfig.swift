import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerStore

/// Store `redis` (CONFIG.md `store`): a Redis server shared by several instances behind one load balancer.
package struct RedisStoreConfig: Sendable, Hashable {
    /// The longest `commandTimeoutSeconds` accepted: beyond it a stalled Redis holds a sign-in longer than a user waits.
    package static let maximumCommandTimeoutSeconds = 60

    /// Where to connect (`url`).
    package var address: RedisAddress
    /// The password for `AUTH` (`password`).
    package var password: SecretReference?
    /// What every key starts with (`keyPrefix`); nil means ``RedisSessionStore/defaultKeyPrefix``.
    package var keyPrefix: String?
    /// How long an operation may take, in seconds (`commandTimeoutSeconds`); nil means
    /// ``RedisSessionStore/defaultCommandTimeout``.
    package var commandTimeoutSeconds: Int?
}

extension RedisStoreConfig {
    /// The keys this kind reads.
    static let keys = ["url", "password", "keyPrefix", "commandTimeoutSeconds"]

    /// Warns about the keys of other kinds, then reads this kind's; nil after reporting a `url` missing or refused.
    init?(validating fields: [String: JSONValue], at path: ConfigPath, by validator: inout ConfigValidator) {
        validator.warnIgnored(
            in: fields, sectionKeys: StoreConfig.keys, read: Self.keys, kind: StoreConfig.Kind.redis, at: path)
        let address = Self.address(fields["url"], at: path.key("url"), by: &validator)
        let password = fields["password"].flatMap { validator.secret($0, at: path.key("password")) }
        if let address {
            Self.warnIfPlaintext(address, password: fields["password"] != nil, at: path.key("url"), by: &validator)
        }
        let keyPrefix = fields["keyPrefix"].flatMap { validator.string($0, at: path.key("keyPrefix")) }
        if keyPrefix?.isEmpty == true {
            validator.warn(
                path.key("keyPrefix"), "is empty; the store's keys may collide with other data in the database")
        }
        let timeout = fields["commandTimeoutSeconds"].flatMap {
            Self.commandTimeout($0, at: path.key("commandTimeoutSeconds"), by: &validator)
        }
        guard let address else { return nil }
        self.init(address: address, password: password, keyPrefix: keyPrefix, commandTimeoutSeconds: timeout)
    }

    /// `url`, which this kind requires.
    private static func address(
        _ value: JSONValue?, at path: ConfigPath, by validator: inout ConfigValidator
    ) -> RedisAddress? {
        guard let value else {
            return validator.refuse(
                path, "required with kind \"redis\"; expected redis://[USER@]HOST[:PORT][/DB] or unix:/PATH[?db=N]")
        }
        guard let text = validator.string(value, at: path) else { return nil }
        switch RedisAddress.parse(text) {
        case .success(let address): return address
        case .failure(let problem): return validator.refuse(path, problem.description)
        }
    }

    /// `commandTimeoutSeconds`: 1 to ``maximumCommandTimeoutSeconds``.
    private static func commandTimeout(
        _ value: JSONValue, at path: ConfigPath, by validator: inout ConfigValidator
    ) -> Int? {
        guard let seconds = validator.positiveInteger(value, at: path) else { return nil }
        guard seconds <= maximumCommandTimeoutSeconds else {
            return validator.refuse(
                path,
                "\(seconds) is too long: a stalled Redis would hold every sign-in that long; expected 1 to "
                    + "\(maximumCommandTimeoutSeconds) seconds")
        }
        return seconds
    }

    /// Redis over TCP to a host that is not loopback: this build's hiredis has no TLS (CONFIG.md `store`), so whoever
    /// is on the path reads `AUTH`'s password and can forge replies — a `SET NX` or a claim that says "first", which
    /// defeats replay protection. Warned about as plain `http` to a non-loopback `publicURL` is.
    private static func warnIfPlaintext(
        _ address: RedisAddress, password: Bool, at path: ConfigPath, by validator: inout ConfigValidator
    ) {
        guard case .tcp(let host, _) = address.endpoint, !ListenAddress.isLoopback(host: host) else { return }
        let exposed =
            password
            ? "store.password would be sent with AUTH in plain text, and replies could be forged"
            : "replies could be forged"
        validator.warn(
            path,
            "plain TCP to the non-loopback host \(host); \(exposed) (a used state reported new defeats replay "
                + "protection); use a unix: socket, a loopback address, or a local TLS tunnel such as stunnel "
                + "(redis://127.0.0.1:PORT): this build's hiredis has no TLS")
    }

    /// The store, not connected yet: `serve` starts while Redis is down, and `/readyz` answers 503 until it is
    /// reachable (CONFIG.md `store`).
    func makeStore(environment: SecretEnvironment) throws(StoreSetupError) -> any SessionStore & DeviceStore {
        var secret: Secret?
        if let password {
            do {
                secret = try password.resolve(in: environment)
            } catch {
                throw .unresolvablePassword(error)
            }
        }
        do {
            return try RedisSessionStore(
                address: address, password: secret, keyPrefix: keyPrefix ?? RedisSessionStore.defaultKeyPrefix,
                commandTimeout: commandTimeoutSeconds.map { .seconds($0) } ?? RedisSessionStore.defaultCommandTimeout)
        } catch {
            throw .redisUnavailable(error)
        }
    }
}
