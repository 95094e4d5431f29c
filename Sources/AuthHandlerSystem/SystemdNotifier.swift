#if canImport(Glibc)
    import Glibc
#endif

/// Tells systemd about the daemon's state by speaking sd_notify(3)'s datagram protocol directly: each message is one
/// `sendto(2)` on an `AF_UNIX` `SOCK_DGRAM` socket to `$NOTIFY_SOCKET`. Why not libsystemd: the protocol is a text
/// datagram, and this is smaller than a new C dependency.
package final class SystemdNotifier: Sendable {
    /// Where the messages go.
    package let address: NotifySocketAddress
    private let socket: UnixDatagramSocket

    /// A notifier for `address`, with a socket of its own.
    package init(address: NotifySocketAddress) throws(SystemCallError) {
        self.address = address
        socket = try UnixDatagramSocket(subject: address.description)
    }

    /// Sends one message.
    package func send(_ message: ServiceManagerMessage) throws(SystemCallError) {
        try socket.send(Array(message.text.utf8), to: address)
    }
}

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

/// `CLOCK_MONOTONIC` in microseconds, the clock of sd_notify(3)'s `MONOTONIC_USEC=`.
package enum MonotonicClock {
    package static func microseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
    }
}
