import AuthHandlerHTTP

/// The client a password throttle counts (docs/ACCOUNTS.md "Passwords"): an IPv4 address, or the /64 around an IPv6
/// address, since one subscriber is usually given a whole /64 (RFC 6177 §3) and could otherwise take a fresh address
/// for every request. One customer's /64 is one client. The address itself comes from the listener's resolution of
/// `trustedProxies`, as for `startRateLimit` (HTTP-API.md §2.4).
package struct ClientKey: Sendable, Hashable, CustomStringConvertible {
    /// `192.0.2.1`, `2001:db8:1:2::/64`, `unknown` or `command-line`.
    package let value: String

    /// Requests whose peer address is unknown or not numeric: they share one key, so they share one allowance.
    package static let unknown = ClientKey(value: "unknown")

    /// The operator's command line (`auth-handler accounts set-password`), a process of its own with its own budget.
    package static let commandLine = ClientKey(value: "command-line")

    /// The key of `address`.
    package init(_ address: IPAddress) {
        value = address.isIPv6 ? IPAddressRange(network: address, prefixLength: 64).description : address.description
    }

    /// The key of a resolved client address in text (inet_pton(3) syntax); ``unknown`` for anything else.
    package init(resolved text: String) {
        guard let address = IPAddress(parsing: text) else {
            self = .unknown
            return
        }
        self.init(address)
    }

    private init(value: String) {
        self.value = value
    }

    package var description: String { value }
}
