import AuthHandlerCrypto
import AuthHandlerHTTP
import Foundation

/// Turns a parsed config document into an ``AuthHandlerConfig``, collecting every problem with its JSON path.
package struct ConfigValidator {
    /// Where `{"env": ...}` and `{"credential": ...}` secrets are looked up.
    let environment: SecretEnvironment
    /// The directory relative file paths are resolved against (the config file's directory).
    let baseDirectory: String
    /// Whether secret references are read to prove they resolve.
    let resolvesSecrets: Bool
    /// Every problem found so far, in document order.
    package private(set) var problems: [ConfigProblem] = []

    static let topLevelKeys = [
        "listen", "publicURL", "store", "sessionTTLSeconds", "resultTTLSeconds", "providerTimeoutSeconds",
        "providerCallLimit",
        "allowedRedirectURLs", "backend", "providers", "stateKey", "previousStateKeys", "requireResultChallenge",
        "startRateLimit", "trustedProxies", "opsListen", "logFormat", "branding",
        "listener", "deviceAuthorization",
    ]
    static let startRateLimitKeys = ["perMinute", "burst"]
    static let listenerKeys = ["requestDeadlineSeconds", "connectionsPerAddress"]
    static let providerKeys = [
        "protocol", "consumerKey", "consumerSecret", "clientId", "clientSecret", "issuer", "endpoints", "scopes",
        "signatureMethod", "tokenEndpointAuth", "responseMode", "teamId", "keyId", "privateKey", "displayName",
        "trustEmail",
    ]
    static let brandingKeys = ["name"]
    static let secretKeys = ["file", "env", "credential"]

    init(environment: SecretEnvironment, baseDirectory: String, resolvesSecrets: Bool) {
        self.environment = environment
        self.baseDirectory = baseDirectory
        self.resolvesSecrets = resolvesSecrets
    }

    /// Validates the whole document; the result holds defaults wherever a value was missing or bad.
    package mutating func validate(_ root: JSONValue) -> AuthHandlerConfig {
        var config = AuthHandlerConfig()
        guard let fields = object(root, at: .root, allowedKeys: Self.topLevelKeys) else { return config }
        validateListeners(fields, into: &config)
        let storeKind = validateServing(fields, into: &config)
        validateStateKeys(fields, into: &config)
        validateRequestLimits(fields, into: &config)
        let path = ConfigPath.root
        if let value = fields["allowedRedirectURLs"] {
            config.allowedRedirectURLs = redirectURLs(value, at: path.key("allowedRedirectURLs"))
        } else {
            warn(path.key("allowedRedirectURLs"), "not set; serve will refuse every redirectUrl until you list some")
        }
        if storeKind == .redis, fields["stateKey"] == nil {
            fail(
                path.key("stateKey"),
                "required with store kind \"redis\": every instance must hold the same key to open the others' "
                    + "cookies; expected a secret reference to 32 random bytes")
        }
        if let value = fields["backend"] {
            config.backend = BackendConfig.validating(value, at: path.key("backend"), by: &self)
        }
        if let value = fields["branding"] { config.branding = branding(value, at: path.key("branding")) }
        if let value = fields["providers"] {
            config.providers = providers(value, at: path.key("providers"))
        } else {
            warn(path.key("providers"), "not set; no provider can be used for sign-in")
        }
        if let value = fields["deviceAuthorization"] {
            config.deviceAuthorization = deviceAuthorization(
                value, at: path.key("deviceAuthorization"), configured: config.providers)
        }
        if case .accounts = config.backend { checkAccounts(in: config) }
        return config
    }

    /// `listen` and `opsListen`, which must not share an address.
    private mutating func validateListeners(_ fields: [String: JSONValue], into config: inout AuthHandlerConfig) {
        let path = ConfigPath.root
        if let value = fields["listen"] {
            config.listen = listen(value, at: path.key("listen")) ?? AuthHandlerConfig.defaultListen
        }
        if let value = fields["opsListen"] {
            config.opsListen = listen(value, at: path.key("opsListen"))
            if let ops = config.opsListen { checkDistinct(ops, from: config.listen, at: path.key("opsListen")) }
        }
    }

    /// `logFormat`, `publicURL`, `store` and the three time limits; answers the store's kind as written, which decides
    /// whether `stateKey` is required even when the store's other keys have errors.
    private mutating func validateServing(
        _ fields: [String: JSONValue], into config: inout AuthHandlerConfig
    ) -> StoreConfig.Kind {
        let path = ConfigPath.root
        if let value = fields["logFormat"], let format = enumeration(value, LogFormat.self, at: path.key("logFormat")) {
            config.logFormat = format
        }
        if let value = fields["publicURL"] { config.publicURL = publicURL(value, at: path.key("publicURL")) }
        var storeKind = config.store.kind
        if let value = fields["store"] {
            (storeKind, config.store) = StoreConfig.validating(value, at: path.key("store"), by: &self)
        }
        let limits: [(key: String, setting: WritableKeyPath<AuthHandlerConfig, Int>)] = [
            ("sessionTTLSeconds", \.sessionTTLSeconds), ("resultTTLSeconds", \.resultTTLSeconds),
            ("providerTimeoutSeconds", \.providerTimeoutSeconds), ("providerCallLimit", \.providerCallLimit),
        ]
        for (key, setting) in limits {
            if let value = fields[key], let seconds = positiveInteger(value, at: path.key(key)) {
                config[keyPath: setting] = seconds
            }
        }
        return storeKind
    }

    /// `stateKey`, `previousStateKeys` and `requireResultChallenge` (warned about when false).
    private mutating func validateStateKeys(_ fields: [String: JSONValue], into config: inout AuthHandlerConfig) {
        let path = ConfigPath.root
        if let value = fields["stateKey"] { config.stateKey = stateKey(value, at: path.key("stateKey")) }
        if let value = fields["previousStateKeys"] {
            config.previousStateKeys = previousStateKeys(value, at: path.key("previousStateKeys"))
        }
        if let value = fields["requireResultChallenge"],
            let required = boolean(value, at: path.key("requireResultChallenge"))
        {
            config.requireResultChallenge = required
            if !required {
                warn(
                    path.key("requireResultChallenge"),
                    "is false: a start need not carry resultChallenge, so whoever obtains a result code can redeem it; "
                        + "every app must then check that a redeemed result's eventId is one it started itself")
            }
        }
    }

    /// `startRateLimit`, `trustedProxies` and `listener`.
    private mutating func validateRequestLimits(_ fields: [String: JSONValue], into config: inout AuthHandlerConfig) {
        let path = ConfigPath.root
        if let value = fields["listener"] { config.listener = listenerLimits(value, at: path.key("listener")) }
        if let value = fields["startRateLimit"] {
            config.startRateLimit = startRateLimit(value, at: path.key("startRateLimit"))
        }
        if let value = fields["trustedProxies"] {
            config.trustedProxies = trustedProxies(value, at: path.key("trustedProxies"))
        }
    }

    // MARK: - Reporting

    mutating func fail(_ path: ConfigPath, _ message: String) {
        problems.append(ConfigProblem(.error, at: path, message))
    }

    /// Reports the error at `path` and gives nil: what a check answers for a value it refuses.
    mutating func refuse<Value>(_ path: ConfigPath, _ message: String) -> Value? {
        fail(path, message)
        return nil
    }

    mutating func warn(_ path: ConfigPath, _ message: String) {
        problems.append(ConfigProblem(.warning, at: path, message))
    }

    // MARK: - Top-level sections

    /// `branding`: `{"name": ...}`, the product name on the pages people see.
    private mutating func branding(_ value: JSONValue, at path: ConfigPath) -> Branding? {
        guard let fields = object(value, at: path, allowedKeys: Self.brandingKeys) else { return nil }
        guard let nameValue = fields["name"] else {
            return refuse(
                path.key("name"), "required in branding; expected the product name people know, such as \"Acme\"")
        }
        return displayText(nameValue, at: path.key("name")).map(Branding.init(name:))
    }

    /// The addresses of `listen` or `opsListen`; nil when the value is not an array.
    private mutating func listen(_ value: JSONValue, at path: ConfigPath) -> [ListenAddress]? {
        guard case .array(let items) = value else {
            return refuse(path, "expected an array of \"HOST:PORT\" strings, got \(value.typeName)")
        }
        if items.isEmpty { fail(path, "is empty; expected at least one \"HOST:PORT\" address") }
        var addresses: [ListenAddress] = []
        for (index, item) in items.enumerated() {
            guard let text = string(item, at: path.index(index)) else { continue }
            if let address = ListenAddress(parsing: text) {
                addresses.append(address)
            } else {
                fail(path.index(index), "\(Self.quote(text)) is not a listen address; \(ListenAddress.expectedForm)")
            }
        }
        return addresses
    }

    /// Reports each `opsListen` address that `listen` binds too (port 0 is a fresh port each time, so it never clashes).
    private mutating func checkDistinct(_ ops: [ListenAddress], from listen: [ListenAddress], at path: ConfigPath) {
        for (index, address) in ops.enumerated() where address.port != 0 && listen.contains(address) {
            fail(
                path.index(index),
                "\(address) is also in listen; the operations listener needs addresses of its own (another port)")
        }
    }

    private mutating func publicURL(_ value: JSONValue, at path: ConfigPath) -> URL? {
        guard let text = string(value, at: path) else { return nil }
        let expected = "expected an absolute http(s) origin such as https://auth.example.com"
        guard let parts = URLComponents(string: text), let scheme = parts.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = parts.host, !host.isEmpty
        else {
            return refuse(path, "\(Self.quote(text)) is not an absolute http(s) URL; \(expected)")
        }
        var valid = true
        if parts.query != nil {
            fail(path, "must not have a query; \(expected)")
            valid = false
        }
        if parts.fragment != nil {
            fail(path, "must not have a fragment; \(expected)")
            valid = false
        }
        if parts.user != nil || parts.password != nil {
            fail(path, "must not contain user info; \(expected)")
            valid = false
        }
        if scheme == "http" && !ListenAddress.isLoopback(host: host) {
            warn(path, "plain http on a non-loopback host; IdPs will send codes over an unencrypted connection")
        }
        guard valid else { return nil }
        var normalized = parts
        while normalized.path.hasSuffix("/") { normalized.path.removeLast() }
        return normalized.url
    }

    private mutating func redirectURLs(_ value: JSONValue, at path: ConfigPath) -> [URL] {
        guard case .array(let items) = value else {
            fail(path, "expected an array of absolute URLs, got \(value.typeName)")
            return []
        }
        if items.isEmpty { warn(path, "is empty; serve will refuse every redirectUrl") }
        var urls: [URL] = []
        for (index, item) in items.enumerated() {
            let itemPath = path.index(index)
            guard let text = string(item, at: itemPath) else { continue }
            let expected = "expected an absolute URL such as https://app.example.com/signed-in or com.example.app:/auth"
            guard let parts = URLComponents(string: text), let scheme = parts.scheme?.lowercased(), let url = parts.url
            else {
                fail(itemPath, "\(Self.quote(text)) is not an absolute URL; \(expected)")
                continue
            }
            if (scheme == "http" || scheme == "https") && (parts.host ?? "").isEmpty {
                fail(itemPath, "\(Self.quote(text)) has no host; \(expected)")
                continue
            }
            if parts.fragment != nil {
                fail(itemPath, "\(Self.quote(text)) has a fragment; redirect URLs must not have one (RFC 6749 §3.1.2)")
                continue
            }
            if scheme == "http", let host = parts.host, !ListenAddress.isLoopback(host: host) {
                warn(itemPath, "plain http on a non-loopback host; result codes would travel unencrypted")
            }
            urls.append(url)
        }
        return urls
    }

    private mutating func stateKey(_ value: JSONValue, at path: ConfigPath) -> SecretReference? {
        guard let reference = secret(value, at: path) else { return nil }
        // An unresolvable reference was reported by secret(); only a value that was read is checked here.
        if resolvesSecrets, let key = try? reference.resolve(in: environment), StateKeyFormat.decode(key) == nil {
            fail(path, "the value of \(reference) is not a state key; \(StateKeyFormat.expectation)")
        }
        return reference
    }

    private mutating func previousStateKeys(_ value: JSONValue, at path: ConfigPath) -> [SecretReference] {
        guard case .array(let items) = value else {
            fail(path, "expected an array of secret references, got \(value.typeName)")
            return []
        }
        return items.enumerated().compactMap { index, item in stateKey(item, at: path.index(index)) }
    }

    private mutating func startRateLimit(_ value: JSONValue, at path: ConfigPath) -> StartRateLimit {
        var limit = StartRateLimit.default
        guard let fields = object(value, at: path, allowedKeys: Self.startRateLimitKeys) else { return limit }
        if let perMinute = fields["perMinute"].flatMap({
            positiveInteger($0, at: path.key("perMinute"), counting: "starts per minute")
        }) {
            limit.perMinute = perMinute
        }
        if let burst = fields["burst"].flatMap({ positiveInteger($0, at: path.key("burst"), counting: "starts") }) {
            limit.burst = burst
        }
        return limit
    }

    private mutating func listenerLimits(_ value: JSONValue, at path: ConfigPath) -> ListenerLimits {
        var limits = ListenerLimits.default
        guard let fields = object(value, at: path, allowedKeys: Self.listenerKeys) else { return limits }
        if let seconds = fields["requestDeadlineSeconds"].flatMap({
            positiveInteger($0, at: path.key("requestDeadlineSeconds"))
        }) {
            limits.requestDeadlineSeconds = seconds
        }
        if let value = fields["connectionsPerAddress"] {
            // 0 turns the limit off (behind a reverse proxy); otherwise a positive count.
            if Self.wholeNumber(value) == 0 {
                limits.connectionsPerAddress = 0
            } else if let count = positiveInteger(
                value, at: path.key("connectionsPerAddress"), counting: "connections (or 0 for no limit)")
            {
                limits.connectionsPerAddress = count
            }
        }
        return limits
    }

    private mutating func trustedProxies(_ value: JSONValue, at path: ConfigPath) -> [IPAddressRange] {
        guard case .array(let items) = value else {
            fail(path, "expected an array of IP addresses or CIDR blocks, got \(value.typeName)")
            return []
        }
        var ranges: [IPAddressRange] = []
        for (index, item) in items.enumerated() {
            let itemPath = path.index(index)
            guard let text = string(item, at: itemPath) else { continue }
            guard let range = IPAddressRange(parsing: text) else {
                fail(
                    itemPath,
                    "\(Self.quote(text)) is not an IP address; expected an IPv4 or IPv6 address (10.0.0.1, ::1) "
                        + "or a CIDR block (10.0.0.0/8, fd00::/8), without brackets or port")
                continue
            }
            if range.prefixLength == 0 {
                warn(itemPath, "trusts every address, so any client can choose the address it is limited as")
            }
            ranges.append(range)
        }
        return ranges
    }

    private mutating func providers(_ value: JSONValue, at path: ConfigPath) -> [String: ProviderConfig] {
        guard case .object(let entries) = value else {
            fail(path, "expected an object of providers keyed by id, got \(value.typeName)")
            return [:]
        }
        if entries.isEmpty { warn(path, "is empty; no provider can be used for sign-in") }
        var result: [String: ProviderConfig] = [:]
        for id in entries.keys.sorted() {
            guard let entry = entries[id] else { continue }
            if let provider = provider(id: id, value: entry, at: path.entry(id)) { result[id] = provider }
        }
        return result
    }
}
