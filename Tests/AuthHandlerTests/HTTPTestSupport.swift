import Foundation

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP

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
