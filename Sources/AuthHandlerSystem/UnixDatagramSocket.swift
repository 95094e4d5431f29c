#if canImport(Glibc)
    import Glibc
#endif

/// An unbound `AF_UNIX` datagram socket, closed exactly once when the value goes.
final class UnixDatagramSocket: Sendable {
    private let socket: FileDescriptor

    init(subject: String) throws(SystemCallError) {
        socket = try FileDescriptor(
            socket: AF_UNIX, type: Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
            name: "socket(AF_UNIX, SOCK_DGRAM)", subject: subject)
    }

    /// One datagram to `address`; `MSG_NOSIGNAL` so that a vanished manager is an error, not SIGPIPE.
    func send(_ bytes: [UInt8], to address: NotifySocketAddress) throws(SystemCallError) {
        let sent = try socket.call("sendto") { fd in
            bytes.withUnsafeBytes { buffer in
                address.withSocketAddress { socketAddress, length in
                    sendto(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL), socketAddress, length)
                }
            }
        }
        guard sent == bytes.count else {
            throw SystemCallError(call: "sendto (short datagram)", subject: socket.subject, errorNumber: EMSGSIZE)
        }
    }
}
