import AuthHandlerCore
import AuthHandlerHTTP

/// The listener's checks of a request head before any handler runs (HTTP-API.md §3.5): the request target, the framing
/// headers and `Host`, on the fields as libmicrohttpd hands them over.
///
/// The input: a first byte whose lowest bit says HTTP/1.0, then the request target, then header lines `name: value`,
/// each line ending in LF (a CR before it is dropped, as libmicrohttpd does).
enum ListenerTarget {
    static func run(_ input: [UInt8]) {
        guard let flags = input.first else { return }
        let isHTTP10 = flags & 1 == 1
        var lines = input.dropFirst().split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map {
            $0.last == UInt8(ascii: "\r") ? $0.dropLast() : $0
        }
        guard !lines.isEmpty else { return }
        let target = String(decoding: lines.removeFirst(), as: UTF8.self)
        var headers = HTTPHeaders()
        for line in lines {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
                headers.add(name: String(decoding: line, as: UTF8.self), value: "")
                continue
            }
            let value = line[(colon + 1)...].drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            headers.add(
                name: String(decoding: line[..<colon], as: UTF8.self), value: String(decoding: value, as: UTF8.self))
        }

        let targetRefusal = HTTPRequestChecks.targetRefusal(target, limit: 1024)
        if targetRefusal == nil {
            expect(target.utf8.count <= 1024, "a target over the limit passed")
            expect(!target.utf8.contains { $0 <= 0x20 || $0 == 0x7f }, "a target with whitespace or a control passed")
        }
        for refusal in [
            targetRefusal, HTTPRequestChecks.framingRefusal(headers, isHTTP10: isHTTP10),
            HTTPRequestChecks.hostRefusal(headers, isHTTP10: isHTTP10),
        ] {
            guard let refusal else { continue }
            expect([400, 414, 501].contains(refusal.status), "a refusal with status \(refusal.status)")
            expect(refusal.headers["Connection"] == "close", "a refusal that keeps the connection")
        }
        if HTTPRequestChecks.framingRefusal(headers, isHTTP10: isHTTP10) == nil {
            // What passes framing is framed one way only (RFC 9112 §6.3).
            let lengths = headers.values(for: "Content-Length")
            let codings = headers.values(for: "Transfer-Encoding")
            expect(lengths.isEmpty || codings.isEmpty, "Content-Length and Transfer-Encoding both passed")
            expect(lengths.count <= 1, "two Content-Lengths passed")
        }
        for host in headers.values(for: "Host") where HTTPRequestChecks.isValidHost(host) {
            expect(
                !host.utf8.contains { $0 <= 0x20 || $0 >= 0x7f || "/?#@\\".utf8.contains($0) },
                "a Host with a delimiter or a control passed: \(host.debugDescription)")
        }
    }
}
