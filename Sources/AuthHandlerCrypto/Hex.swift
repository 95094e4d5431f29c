/// Base16 (RFC 4648 §8) in lower case, as webhook signatures (`sha256=<hex>`) and store keys use it.
package enum Hex {
    /// Two lower-case hex digits per byte.
    package static func lowercase(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
