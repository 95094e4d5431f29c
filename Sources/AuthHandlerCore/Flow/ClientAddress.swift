import AuthHandlerHTTP

/// Who a request comes from, for the start rate limit (HTTP-API.md §2.4, `startRateLimit`, `trustedProxies`).
package enum ClientAddress {
    /// The key used when the peer address is unknown or not numeric: all such requests share one bucket.
    package static let unknown = "unknown"

    /// The client's address: the peer itself, unless the peer is a trusted proxy, in which case
    /// `X-Forwarded-For` is read right to left.
    ///
    /// Each proxy appends the address it received the request from, so only the entries added by proxies
    /// we trust are believed: walking from the right, trusted addresses are skipped and the first untrusted
    /// one is the client. Anything to its left was written by the client and is ignored. A malformed entry
    /// (not a bare IP address) stops the walk, and the last trusted hop is the client; so does a list made
    /// only of trusted addresses. A peer that is not trusted is the client whatever its headers say.
    ///
    /// - Parameters:
    ///   - peer: `ServerRequest.remoteAddress`, `host:port` or `[v6]:port`.
    ///   - forwardedFor: every `X-Forwarded-For` field value, in the order received; each may hold a
    ///     comma-separated list (RFC 9110 §5.3).
    ///   - trusted: `trustedProxies`.
    /// - Returns: the canonical text of the client's address (inet_ntop(3)), or ``unknown``.
    package static func resolve(peer: String?, forwardedFor: [String], trusted: [IPAddressRange]) -> String {
        guard let peer, let peerAddress = IPAddress(parsing: host(ofPeer: peer)) else { return unknown }
        guard isTrusted(peerAddress, trusted) else { return peerAddress.description }
        var lastTrusted = peerAddress
        let entries = forwardedFor.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
        for entry in entries.reversed() {
            guard let address = IPAddress(parsing: String(entry.trimmingOWS())) else { break }
            guard isTrusted(address, trusted) else { return address.description }
            lastTrusted = address
        }
        return lastTrusted.description
    }

    /// The rate-limit key for a resolved client: an IPv6 address counts as its /64, since one subscriber
    /// usually holds a whole /64 (RFC 6177 §3) and could otherwise use a fresh address per request.
    package static func rateLimitKey(_ client: String) -> String {
        guard let address = IPAddress(parsing: client), address.isIPv6 else { return client }
        return IPAddressRange(network: address, prefixLength: 64).description
    }

    /// The host part of `host:port` or `[v6]:port`; a bare address is returned as it is.
    static func host(ofPeer peer: String) -> String {
        if peer.hasPrefix("[") {
            guard let close = peer.firstIndex(of: "]") else { return peer }
            return String(peer[peer.index(after: peer.startIndex)..<close])
        }
        let colons = peer.filter { $0 == ":" }.count
        guard colons == 1, let colon = peer.firstIndex(of: ":") else { return peer }
        return String(peer[..<colon])
    }

    private static func isTrusted(_ address: IPAddress, _ trusted: [IPAddressRange]) -> Bool {
        trusted.contains { $0.contains(address) }
    }
}

extension Substring {
    /// Without the optional whitespace (spaces and tabs) RFC 9110 §5.6.3 allows around list elements.
    fileprivate func trimmingOWS() -> Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}
