/// An IP address or a CIDR block (`10.0.0.0/8`, `2001:db8::/32`, RFC 4632 §3.1 / RFC 4291 §2.3), as
/// written in `trustedProxies`.
package struct IPAddressRange: Sendable, Hashable, CustomStringConvertible {
    /// The first address of the block (host bits cleared).
    package let network: IPAddress
    /// How many leading bits must match: 0...32 for IPv4, 0...128 for IPv6.
    package let prefixLength: Int

    /// Parses `ADDRESS` (a single address) or `ADDRESS/PREFIX`; nil for anything else, including a
    /// prefix longer than the family allows or written with a sign or leading zero.
    package init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2, let address = IPAddress(parsing: String(parts[0])) else {
            return nil
        }
        let maximum = address.bytes.count * 8
        var length = maximum
        if parts.count == 2 {
            let digits = parts[1]
            guard !digits.isEmpty, digits.count <= 3, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                digits == "0" || !digits.hasPrefix("0"), let value = Int(digits)
            else { return nil }
            // `::ffff:10.0.0.0/104` names IPv4 10.0.0.0/8: the mapped prefix's 96 bits are dropped with it.
            let isMapped = String(parts[0]).contains(":") && !address.isIPv6
            length = isMapped ? value - 96 : value
            guard length >= 0, length <= maximum else { return nil }
        }
        self.init(network: address, prefixLength: length)
    }

    /// The block of `prefixLength` bits around `address`; the length is clamped to the family's size.
    package init(network address: IPAddress, prefixLength: Int) {
        let maximum = address.bytes.count * 8
        let length = min(max(prefixLength, 0), maximum)
        self.prefixLength = length
        network = IPAddress(bytes: Self.masked(address.bytes, prefixLength: length)) ?? address
    }

    /// Whether `address` is inside this block (an IPv4 address is never inside an IPv6 block).
    package func contains(_ address: IPAddress) -> Bool {
        address.bytes.count == network.bytes.count
            && Self.masked(address.bytes, prefixLength: prefixLength) == network.bytes
    }

    /// `ADDRESS` for a single address, `ADDRESS/PREFIX` otherwise.
    package var description: String {
        prefixLength == network.bytes.count * 8 ? network.description : "\(network)/\(prefixLength)"
    }

    static func masked(_ bytes: [UInt8], prefixLength: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let bits = min(max(prefixLength - index * 8, 0), 8)
            return bits == 8 ? byte : byte & ~(UInt8.max >> bits)
        }
    }
}
