/// `deviceAuthorization` in the config (HTTP-API.md §2.12): the device sign-in of RFC 8628 in front of the
/// configured providers. Off unless enabled: the grant can be phished (someone starts a sign-in and sends the victim
/// the code), so an operator turns it on knowingly (docs/OPERATIONS.md "Security model").
package struct DeviceAuthorizationConfig: Sendable, Hashable {
    /// Whether `/__/auth/device` and `/__/auth/device/token` are served.
    package var enabled: Bool
    /// The providers a device sign-in may use; empty means every configured provider.
    package var providers: [String]
    /// How long a device code and its user code stay usable (RFC 8628 §3.2 `expires_in`).
    package var codeLifetimeSeconds: Int
    /// The least seconds between two polls of one device code (RFC 8628 §3.2 `interval`).
    package var intervalSeconds: Int

    /// The documented default: off, every provider, 600 s codes, a 5 s interval.
    package static let `default` = DeviceAuthorizationConfig(
        enabled: false, providers: [], codeLifetimeSeconds: 600, intervalSeconds: 5)
    /// The shortest `codeLifetimeSeconds` accepted (short enough for tests, long enough to type a code).
    package static let minimumCodeLifetimeSeconds = 30
    /// The longest `codeLifetimeSeconds` accepted: a code a person types is only as safe as it is short-lived.
    package static let maximumCodeLifetimeSeconds = 1800
    /// The shortest `intervalSeconds` accepted.
    package static let minimumIntervalSeconds = 1
    /// The longest `intervalSeconds` accepted.
    package static let maximumIntervalSeconds = 60

    package init(enabled: Bool, providers: [String], codeLifetimeSeconds: Int, intervalSeconds: Int) {
        self.enabled = enabled
        self.providers = providers
        self.codeLifetimeSeconds = codeLifetimeSeconds
        self.intervalSeconds = intervalSeconds
    }
}
