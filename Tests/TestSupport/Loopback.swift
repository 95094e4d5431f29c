import Foundation
import Synchronization

/// A TCP port on 127.0.0.1 that was free a moment ago (bound to port 0, read back, closed), for servers that cannot
/// bind port 0 and report it (redis-server's `--port 0` disables TCP; nginx prints nothing). The one small race a
/// test accepts: callers retry when the port was taken meanwhile.
package func freeLoopbackPort() throws -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw TestProcessError("socket failed: errno \(errno)") }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
            bind(descriptor, generic, length) == 0 && getsockname(descriptor, generic, &length) == 0
        }
    }
    guard bound else { throw TestProcessError("bind/getsockname on 127.0.0.1:0 failed: errno \(errno)") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// A test browser's cookies for one site (name → value), kept as `Set-Cookie` leaves them (RFC 6265 §5.3, the parts
/// the handler uses: a value, and `Max-Age=0` to delete).
package final class CookieJar: Sendable {
    private let cookies = Mutex<[String: String]>([:])

    package init() {}

    /// Reads or changes the cookies directly (tests that tamper with them).
    package func withLock<T>(_ body: (inout [String: String]) -> T) -> T {
        cookies.withLock { body(&$0) }
    }

    /// The `Cookie` header this browser sends; nil with no cookie.
    package func header() -> String? {
        let pairs = cookies.withLock { jar in jar.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" } }
        return pairs.isEmpty ? nil : pairs.joined(separator: "; ")
    }

    /// Keeps (or, for `Max-Age=0` or an empty value, drops) the cookie of one `Set-Cookie` value.
    package func store(setCookie: String) {
        let parts = setCookie.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let pair = parts.first, let equals = pair.firstIndex(of: "=") else { return }
        let name = String(pair[..<equals])
        let value = String(pair[pair.index(after: equals)...])
        let expired = parts.contains { $0.lowercased() == "max-age=0" }
        cookies.withLock { $0[name] = expired || value.isEmpty ? nil : value }
    }
}
