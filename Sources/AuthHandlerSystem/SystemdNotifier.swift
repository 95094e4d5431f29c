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
