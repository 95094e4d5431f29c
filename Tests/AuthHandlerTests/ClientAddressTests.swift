import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP

struct ClientAddressTests {
    static func ranges(_ texts: [String]) -> [IPAddressRange] {
        texts.compactMap { IPAddressRange(parsing: $0) }
    }

    @Test func anUntrustedPeerIsTheClientWhateverItsHeadersSay() {
        let client = ClientAddress.resolve(
            peer: "198.51.100.7:51000", forwardedFor: ["1.2.3.4", "10.0.0.1"], trusted: Self.ranges(["10.0.0.0/8"]))
        #expect(client == "198.51.100.7")
    }

    @Test func withoutTrustedProxiesForwardedForIsIgnored() {
        #expect(
            ClientAddress.resolve(peer: "127.0.0.1:9000", forwardedFor: ["203.0.113.9"], trusted: []) == "127.0.0.1")
    }

    @Test func aChainThroughTwoTrustedProxiesNamesTheClient() {
        // client 203.0.113.9 -> proxy 10.0.0.5 -> proxy 10.0.0.1 (the peer); the client spoofed 1.1.1.1.
        let client = ClientAddress.resolve(
            peer: "10.0.0.1:40000", forwardedFor: ["1.1.1.1, 203.0.113.9", "10.0.0.5"],
            trusted: Self.ranges(["10.0.0.1", "10.0.0.5"]))
        #expect(client == "203.0.113.9")
    }

    @Test func theRightmostUntrustedEntryWinsNotTheLeftmost() {
        let client = ClientAddress.resolve(
            peer: "10.0.0.1:1", forwardedFor: ["6.6.6.6,203.0.113.9"], trusted: Self.ranges(["10.0.0.0/8"]))
        #expect(client == "203.0.113.9")
    }

    @Test func ipv6PeersAndEntries() {
        #expect(ClientAddress.resolve(peer: "[2001:db8::1]:443", forwardedFor: [], trusted: []) == "2001:db8::1")
        let client = ClientAddress.resolve(
            peer: "[::1]:8080", forwardedFor: ["2001:DB8:0:0::42 , ::1"], trusted: Self.ranges(["::1/128"]))
        #expect(client == "2001:db8::42")
    }

    @Test func anIPv4MappedPeerMatchesAnIPv4Proxy() {
        let client = ClientAddress.resolve(
            peer: "[::ffff:10.0.0.1]:80", forwardedFor: ["203.0.113.9"], trusted: Self.ranges(["10.0.0.1"]))
        #expect(client == "203.0.113.9")
    }

    @Test(arguments: [
        ["garbage"], ["203.0.113.9:1234"], ["unknown"], [""], ["203.0.113.9, "], ["[2001:db8::1]"], ["1.2.3.04"],
        ["fe80::1%eth0"], ["_hidden"],
    ])
    func aMalformedEntryStopsTheWalkAtTheLastTrustedHop(_ forwardedFor: [String]) {
        let client = ClientAddress.resolve(
            peer: "10.0.0.1:40000", forwardedFor: forwardedFor, trusted: Self.ranges(["10.0.0.0/8"]))
        #expect(client == "10.0.0.1")
    }

    @Test func aMalformedEntryBehindATrustedHopStopsThere() {
        let client = ClientAddress.resolve(
            peer: "10.0.0.1:1", forwardedFor: ["203.0.113.9, bogus, 10.0.0.7"], trusted: Self.ranges(["10.0.0.0/8"]))
        #expect(client == "10.0.0.7")
    }

    @Test func onlyTrustedEntriesLeaveTheLeftmostTrustedHop() {
        let client = ClientAddress.resolve(
            peer: "10.0.0.1:1", forwardedFor: ["10.0.0.3", "10.0.0.2"], trusted: Self.ranges(["10.0.0.0/8"]))
        #expect(client == "10.0.0.3")
    }

    @Test(arguments: [nil, "", "garbage", "[::1", "host.example:80"])
    func anUnknownPeerSharesOneKey(_ peer: String?) {
        #expect(ClientAddress.resolve(peer: peer, forwardedFor: ["203.0.113.9"], trusted: []) == ClientAddress.unknown)
    }

    @Test func ipv6ClientsAreLimitedPerSlash64() {
        #expect(ClientAddress.rateLimitKey("2001:db8:1:2:aaaa::1") == "2001:db8:1:2::/64")
        #expect(ClientAddress.rateLimitKey("2001:db8:1:2:bbbb::9") == "2001:db8:1:2::/64")
        #expect(ClientAddress.rateLimitKey("192.0.2.1") == "192.0.2.1")
        #expect(ClientAddress.rateLimitKey(ClientAddress.unknown) == ClientAddress.unknown)
    }
}

struct IPAddressRangeTests {
    @Test(arguments: [
        ("10.0.0.0/8", "10.255.1.2", true), ("10.0.0.0/8", "11.0.0.1", false), ("192.0.2.1", "192.0.2.1", true),
        ("192.0.2.1", "192.0.2.2", false), ("0.0.0.0/0", "198.51.100.1", true), ("::1/128", "::1", true),
        ("::1", "::2", false), ("2001:db8::/32", "2001:db8:ffff::1", true), ("2001:db8::/32", "2001:db9::1", false),
        ("172.16.0.0/12", "172.31.255.255", true), ("172.16.0.0/12", "172.32.0.0", false),
        ("10.0.0.0/8", "::ffff:10.1.1.1", true), ("::/0", "10.0.0.1", false), ("10.1.2.3/8", "10.9.9.9", true),
    ])
    func containment(_ range: String, _ address: String, _ expected: Bool) throws {
        let parsed = try #require(IPAddressRange(parsing: range))
        let candidate = try #require(IPAddress(parsing: address))
        #expect(parsed.contains(candidate) == expected)
    }

    @Test(arguments: [
        "", "10.0.0.0/33", "::/129", "10.0.0.0/", "10.0.0.0/-1", "10.0.0.0/+8", "10.0.0.0/08", "10.0.0/8", "host",
        "10.0.0.0/8/8", "[::1]", "::1/1a", "1.2.3.4 ",
    ])
    func malformedRangesAreRefused(_ text: String) {
        #expect(IPAddressRange(parsing: text) == nil)
    }

    @Test func descriptionIsCanonicalAndRoundTrips() throws {
        #expect(IPAddressRange(parsing: "10.1.2.3/8")?.description == "10.0.0.0/8")
        #expect(IPAddressRange(parsing: "2001:DB8:0::1")?.description == "2001:db8::1")
        #expect(IPAddressRange(parsing: "::1/128")?.description == "::1")
        for text in ["10.0.0.0/8", "::1", "2001:db8::/32", "192.0.2.1"] {
            let range = try #require(IPAddressRange(parsing: text))
            #expect(IPAddressRange(parsing: range.description) == range)
        }
    }
}
