import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs blocking socket work on its own thread so it never ties up the Swift concurrency pool.
package func httpTestOffPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: work()) }.start()
    }
}

/// A response read from an `HTTPRawConnection`.
package struct HTTPRawResponse: Sendable, Equatable {
    package let status: Int
    package let head: String
    package let body: String
}

/// A blocking TCP connection to a loopback port, for speaking raw HTTP/1.1 in tests: the bytes a well-behaved client
/// (libcurl) would never send, such as conflicting framing headers.
///
/// Every receive and send gives up after `timeout` (SO_RCVTIMEO, SO_SNDTIMEO; socket(7)), so a server that stops
/// answering or reading fails the test instead of hanging it.
package final class HTTPRawConnection: @unchecked Sendable {
    // @unchecked: each test uses a connection from one thread at a time, via httpTestOffPool.
    package let fd: Int32

    package init?(port: UInt16, timeout: Duration = .seconds(5)) {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        let (seconds, attoseconds) = timeout.components
        var limit = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        // No close here: Swift runs deinit after a failable init returns nil once every property is set, and
        // closing twice could close a descriptor another thread has just been given.
        guard connected == 0 else { return nil }
    }

    deinit {
        if fd >= 0 { close(fd) }
    }

    /// Writes all of `text`; false when the peer is gone or stopped reading.
    @discardableResult
    package func write(_ text: String) -> Bool {
        write(bytes: Array(text.utf8))
    }

    /// Writes all of `bytes` (any bytes, NUL and invalid UTF-8 included); false when the peer is gone or stopped
    /// reading.
    @discardableResult
    package func write(bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// Reads one response (head + Content-Length body); nil on EOF, reset or timeout before a full head.
    package func readResponse() -> HTTPRawResponse? {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            if let end = buffer.firstRange(of: Array("\r\n\r\n".utf8)) {
                let head = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
                let length =
                    head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                let bodyStart = end.upperBound
                if buffer.count - bodyStart >= length {
                    let statusText = head.split(separator: " ").dropFirst().first.map(String.init) ?? ""
                    let body = String(decoding: buffer[bodyStart..<bodyStart + length], as: UTF8.self)
                    return HTTPRawResponse(status: Int(statusText) ?? 0, head: head, body: body)
                }
            }
            let count = recv(fd, &chunk, chunk.count, 0)
            guard count > 0 else { return nil }
            buffer.append(contentsOf: chunk[..<count])
        }
    }

    /// Everything the peer sends until it closes the connection; `closed` is false on a read timeout.
    package func readUntilClosed() -> (text: String, closed: Bool) {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count > 0 {
                buffer.append(contentsOf: chunk[..<count])
                continue
            }
            let closed = count == 0 || errno == ECONNRESET
            return (String(decoding: buffer, as: UTF8.self), closed)
        }
    }

    /// Whether the peer has closed the connection (reads until EOF, error or timeout).
    package func isClosedByPeer() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count == 0 { return true }
            if count < 0 { return errno == ECONNRESET }
        }
    }
}
