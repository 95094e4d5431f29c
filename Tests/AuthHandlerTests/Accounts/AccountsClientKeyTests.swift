import AuthHandlerHTTP
import Testing

@testable import AuthHandlerAccounts

/// `ClientKey`: an IPv4 address, or an IPv6 address's /64 (RFC 6177 §3).
@Suite struct AccountsClientKeyTests {
    @Test("an IPv4 address is its own key; an IPv4-mapped IPv6 address is the IPv4 one")
    func ipv4() {
        #expect(ClientKey(resolved: "192.0.2.1").value == "192.0.2.1")
        #expect(ClientKey(resolved: "::ffff:192.0.2.1") == ClientKey(resolved: "192.0.2.1"))
        #expect(ClientKey(resolved: "192.0.2.1") != ClientKey(resolved: "192.0.2.2"))
    }

    @Test("IPv6 addresses in one /64 share a key; another /64 has another")
    func ipv6() {
        let first = ClientKey(resolved: "2001:db8:1:2::1")
        #expect(first == ClientKey(resolved: "2001:db8:1:2:ffff:ffff:ffff:ffff"))
        #expect(first.value == "2001:db8:1:2::/64")
        #expect(first != ClientKey(resolved: "2001:db8:1:3::1"))
    }

    @Test("anything but a numeric address is the shared unknown key")
    func unknown() {
        #expect(ClientKey(resolved: "unknown") == .unknown)
        #expect(ClientKey(resolved: "example.com") == .unknown)
    }
}
