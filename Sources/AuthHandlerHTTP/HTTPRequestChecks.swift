import AuthHandlerSystem

/// The listener's checks of a request head, before any handler runs (HTTP-API.md §3.5): each returns the refusal,
/// which closes the connection, or nil. Pure functions of what libmicrohttpd parsed, fuzzed by the `listener` target
/// (docs/ARCHITECTURE.md "Fuzz targets").
package enum HTTPRequestChecks {
    /// The refusal of a request whose body length two parsers could disagree on; it closes the connection.
    ///
    /// MHD 0.9.75 itself refuses a single malformed `Content-Length` (400) or one past its range (413) before
    /// the access handler runs; what it lets through is handled here (RFC 9112 §6.1, §6.3).
    package static func framingRefusal(_ headers: HTTPHeaders, isHTTP10: Bool) -> ServerResponse? {
        if headers.contains(where: { $0.name.utf8.contains { $0 <= 0x20 || $0 == 0x7f } }) {
            // RFC 9112 §5.1: whitespace before the colon must be refused (400). MHD keeps it in the name, so
            // "Transfer-Encoding : chunked" is no framing header here but may be one to a front end that trims it.
            // A control character is no token character either (RFC 9110 §5.1); MHD refuses a NUL itself.
            return closing(
                .text("Bad Request: whitespace or a control character in a header field name\n", status: 400))
        }
        if headers.contains(where: { $0.value.utf8.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7f } }) {
            // RFC 9110 §5.5 / RFC 9112 §2.2: a bare CR (or another control) in a field value; a front end that ends
            // lines at CR would read a different header block (MHD keeps the CR in the value). A NUL cannot be seen
            // here: MHD hands fields over as C strings, so the value ends at it (HTTP-API.md §3.5).
            return closing(.text("Bad Request: a control character in a header field value\n", status: 400))
        }
        let codings = headers.values(for: "Transfer-Encoding")
        let lengths = headers.values(for: "Content-Length")
        if !codings.isEmpty, !lengths.isEmpty {
            // RFC 9112 §6.3 item 3: MHD would let Transfer-Encoding win; a front end may have used the length.
            return closing(.text("Bad Request: both Content-Length and Transfer-Encoding\n", status: 400))
        }
        if !codings.isEmpty, isHTTP10 {
            // RFC 9112 §6.1: Transfer-Encoding in an HTTP/1.0 message means faulty framing.
            return closing(.text("Bad Request: Transfer-Encoding in an HTTP/1.0 request\n", status: 400))
        }
        if !codings.isEmpty, codings.count > 1 || codings[0].lowercased() != "chunked" {
            // Only chunked alone is framed by MHD; anything else would leave it waiting for a body it cannot delimit
            // until the idle timeout. RFC 9112 §6.3 item 4: when chunked is not the final coding the body length
            // cannot be determined, and §6.1: chunked is applied once at most — 400 and close. Chunked last after
            // another coding (`gzip, chunked`) is framed, but that coding is not implemented: 501 (RFC 9112 §6.1).
            let names = codings.flatMap { $0.split(separator: ",") }.map {
                String($0.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
                    .lowercased()
            }
            guard names.last == "chunked", names.filter({ $0 == "chunked" }).count == 1 else {
                return closing(
                    .text("Bad Request: Transfer-Encoding must end in chunked, applied once\n", status: 400))
            }
            return closing(.text("Not Implemented: only Transfer-Encoding: chunked is supported\n", status: 501))
        }
        if lengths.count > 1 || lengths.contains(where: { $0.utf8.contains(UInt8(ascii: ",")) }) {
            // RFC 9110 §8.6 lets a recipient accept repeated equal values; MHD uses the first of any, so refuse all.
            return closing(.text("Bad Request: more than one Content-Length\n", status: 400))
        }
        if let length = lengths.first, length.isEmpty || !length.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            // RFC 9110 §8.6: Content-Length = 1*DIGIT.
            return closing(.text("Bad Request: invalid Content-Length\n", status: 400))
        }
        return nil
    }

    /// The refusal of a request target that is too long or not one token; it closes the connection.
    ///
    /// RFC 9112 §3.2: the target holds no whitespace or control character. MHD, told not to be strict, takes
    /// everything between the method and the last space as the target, so `GET /a b HTTP/1.1` arrives as `/a b`;
    /// a front end may have split that line differently, hence the close. Longer than the whole header limit: 414
    /// (RFC 9110 §15.5.15).
    package static func targetRefusal(_ rawURI: String?, limit: Int) -> ServerResponse? {
        guard let rawURI else { return nil }
        if rawURI.utf8.count > limit {
            return closing(.text("URI Too Long: the request target is over \(limit) bytes\n", status: 414))
        }
        if rawURI.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7f }) {
            return closing(.text("Bad Request: whitespace or a control character in the request target\n", status: 400))
        }
        return nil
    }

    /// The refusal of a request without exactly one valid `Host` (RFC 9112 §3.2), closing the connection: such a
    /// request may be a fragment of another; nil when it is fine.
    package static func hostRefusal(_ headers: HTTPHeaders, isHTTP10: Bool) -> ServerResponse? {
        let hosts = headers.values(for: "Host")
        switch hosts.count {
        case 0 where isHTTP10:
            return nil
        case 0:
            return closing(.text("Bad Request: an HTTP/1.1 request needs a Host header\n", status: 400))
        case 1 where isValidHost(hosts[0]):
            return nil
        case 1:
            return closing(.text("Bad Request: invalid Host header\n", status: 400))
        default:
            return closing(.text("Bad Request: more than one Host header\n", status: 400))
        }
    }

    /// Whether `value` is `uri-host [ ":" port ]` (RFC 9110 §7.2, RFC 3986 §3.2.2–3.2.3) with a non-empty host.
    ///
    /// The empty host RFC 9112 §3.2 allows is for targets without an authority, which this server never has.
    package static func isValidHost(_ value: String) -> Bool {
        let bytes = Array(value.utf8)
        var index = 0
        // unreserved / sub-delims (RFC 3986 §2.2–2.3); "%" is checked separately as pct-encoded.
        let isNameByte = { (byte: UInt8) in RFC3986.isUnreserved(byte) || "!$&'()*+,;=".utf8.contains(byte) }
        let isHex = { (byte: UInt8) in Hex.value(byte) != nil }
        if bytes.first == UInt8(ascii: "[") {
            // IP-literal: IPv6address or IPvFuture, whose characters are all name bytes or ":".
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")), close > 1,
                bytes[1..<close].allSatisfy({ isNameByte($0) || $0 == UInt8(ascii: ":") })
            else { return false }
            index = close + 1
        } else {
            // reg-name = *( unreserved / pct-encoded / sub-delims ), here at least one character.
            while index < bytes.count, bytes[index] != UInt8(ascii: ":") {
                if bytes[index] == UInt8(ascii: "%") {
                    guard index + 2 < bytes.count, isHex(bytes[index + 1]), isHex(bytes[index + 2]) else {
                        return false
                    }
                    index += 3
                } else {
                    guard isNameByte(bytes[index]) else { return false }
                    index += 1
                }
            }
            guard index > 0 else { return false }
        }
        guard index < bytes.count else { return true }
        // port = *DIGIT after ":".
        guard bytes[index] == UInt8(ascii: ":") else { return false }
        return bytes[(index + 1)...].allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// `response` with `Connection: close`, which makes MHD close the connection once it is sent.
    package static func closing(_ response: ServerResponse) -> ServerResponse {
        var response = response
        response.headers.set(name: "Connection", value: "close")
        return response
    }
}
