import Foundation
import Synchronization

@testable import AuthHandler

/// A one-shot signal tests use instead of sleeping: `wait()` suspends until `open()` has been called.
final class HTTPTestGate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let alreadyOpen = state.withLock { state in
                if !state.open { state.waiters.append(continuation) }
                return state.open
            }
            if alreadyOpen { continuation.resume() }
        }
    }
}

/// Runs blocking socket work on its own thread so it never ties up the Swift concurrency pool.
func httpTestOffPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: work()) }.start()
    }
}

/// A response read from an `HTTPRawConnection`.
struct HTTPRawResponse: Sendable, Equatable {
    let status: Int
    let head: String
    let body: String
}

/// A blocking TCP connection to a loopback port, for speaking raw HTTP/1.1 in tests.
final class HTTPRawConnection: @unchecked Sendable {
    // @unchecked: each test uses a connection from one thread at a time, via httpTestOffPool.
    let fd: Int32

    init?(port: UInt16) {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
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

    /// Writes all of `text`; false when the peer is gone.
    @discardableResult
    func write(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// Reads one response (head + Content-Length body); nil on EOF, reset or timeout before a full head.
    func readResponse() -> HTTPRawResponse? {
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
    func readUntilClosed() -> (text: String, closed: Bool) {
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
    func isClosedByPeer() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count == 0 { return true }
            if count < 0 { return errno == ECONNRESET }
        }
    }
}

extension HTTPServer {
    /// The port of the first listen address.
    var firstPort: UInt16 { addresses[0].port }

    /// `http://127.0.0.1:PORT` for the first listen address.
    var baseURL: String { "http://\(addresses[0].description)" }
}

/// A listening socket on 127.0.0.1 that answers exactly one connection with `response`, verbatim, then closes.
/// For responses `HTTPServer` would never produce (no Content-Length, close-delimited body).
func httpTestOneShotServer(response: [UInt8]) throws -> UInt16 {
    let socket = try HTTPListeningSocket.open(ListenAddress("127.0.0.1:0"), backlog: 4)
    let port = try HTTPListeningSocket.boundAddress(of: socket).port
    // The thread below owns the descriptor and closes it.
    guard let fd = socket.relinquish() else {
        throw HTTPServerError(operation: "relinquish", subject: "one-shot server", detail: "the socket is closed")
    }
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
    Thread {
        defer { close(fd) }
        let connection = accept(fd, nil, nil)
        guard connection >= 0 else { return }
        defer { close(connection) }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while received.firstRange(of: Array("\r\n\r\n".utf8)) == nil {
            let count = recv(connection, &chunk, chunk.count, 0)
            guard count > 0 else { return }
            received.append(contentsOf: chunk[..<count])
        }
        _ = response.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }.start()
    return port
}
