#if canImport(Glibc)
    import Glibc
#endif

/// A numeric IPv4 or IPv6 address, parsed strictly by inet_pton(3).
///
/// An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, RFC 4291 §2.5.5.2) is the IPv4 address it maps, so a
/// dual-stack socket's peer and a configured IPv4 proxy compare equal.
package struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address in network byte order: 4 bytes for IPv4, 16 for IPv6.
    package let bytes: [UInt8]

    /// Whether this is an IPv6 address (16 bytes).
    package var isIPv6: Bool { bytes.count == 16 }

    /// Parses `192.0.2.1` or `2001:db8::1` (no brackets, zone, port or leading zeros in IPv4 octets);
    /// nil for anything else.
    package init?(parsing text: String) {
        guard !text.isEmpty, text.utf8.count <= Int(INET6_ADDRSTRLEN), !text.utf8.contains(0) else { return nil }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let raw = withUnsafeBytes(of: &v6) { Array($0) }
        let mappedPrefix: [UInt8] = Array(repeating: 0, count: 10) + [0xff, 0xff]
        bytes = raw.starts(with: mappedPrefix) ? Array(raw[12...]) : raw
    }

    /// Creates an address from 4 or 16 bytes in network order; nil for any other length.
    package init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// The canonical text form (inet_ntop(3)): `192.0.2.1`, `2001:db8::1`.
    package var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = isIPv6 ? AF_INET6 : AF_INET
        let written = bytes.withUnsafeBytes { raw in
            inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count)) != nil
        }
        guard written else { return bytes.map { String($0) }.joined(separator: ".") }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
