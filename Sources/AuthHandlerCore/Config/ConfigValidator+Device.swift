import AuthHandlerHTTP

extension ConfigValidator {
    static let deviceAuthorizationKeys = ["enabled", "providers", "codeLifetimeSeconds", "intervalSeconds"]

    /// `deviceAuthorization` (HTTP-API.md §2.12); its `providers` must be configured ones, so it is read after them.
    mutating func deviceAuthorization(
        _ value: JSONValue, at path: ConfigPath, configured: [String: ProviderConfig]
    ) -> DeviceAuthorizationConfig {
        var device = DeviceAuthorizationConfig.default
        guard let fields = object(value, at: path, allowedKeys: Self.deviceAuthorizationKeys) else { return device }
        if let value = fields["enabled"], let enabled = boolean(value, at: path.key("enabled")) {
            device.enabled = enabled
        }
        if let value = fields["providers"] {
            let itemsPath = path.key("providers")
            if case .array(let items) = value {
                for (index, item) in items.enumerated() {
                    guard let id = string(item, at: itemsPath.index(index)) else { continue }
                    guard configured[id] != nil else {
                        fail(
                            itemsPath.index(index),
                            "\(Self.quote(id)) is not a configured provider; list ids from providers, or leave "
                                + "providers out to offer every configured provider")
                        continue
                    }
                    if !device.providers.contains(id) { device.providers.append(id) }
                }
            } else {
                fail(itemsPath, "expected an array of provider ids, got \(value.typeName)")
            }
        }
        let limits: [(key: String, setting: WritableKeyPath<DeviceAuthorizationConfig, Int>, range: ClosedRange<Int>)] =
            [
                (
                    "codeLifetimeSeconds", \.codeLifetimeSeconds,
                    DeviceAuthorizationConfig
                        .minimumCodeLifetimeSeconds...DeviceAuthorizationConfig
                        .maximumCodeLifetimeSeconds
                ),
                (
                    "intervalSeconds", \.intervalSeconds,
                    DeviceAuthorizationConfig.minimumIntervalSeconds...DeviceAuthorizationConfig.maximumIntervalSeconds
                ),
            ]
        for (key, setting, range) in limits {
            guard let value = fields[key], let seconds = positiveInteger(value, at: path.key(key)) else { continue }
            guard range.contains(seconds) else {
                fail(
                    path.key(key),
                    "\(seconds) is out of range; expected \(range.lowerBound) to \(range.upperBound) seconds")
                continue
            }
            device[keyPath: setting] = seconds
        }
        if device.enabled {
            warn(
                path.key("enabled"),
                "device sign-in is on: whoever starts one can send someone the code and be signed in as them if they "
                    + "confirm it; offer it only where people expect to type codes from a terminal")
        }
        return device
    }
}
