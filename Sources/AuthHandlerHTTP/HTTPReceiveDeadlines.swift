import AuthHandlerSystem
import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The absolute deadline by which each connection must have delivered its request, head and body; a connection past
/// it is shut down, so a client sending a byte now and then cannot hold it (HTTP-API.md §3.5).
///
/// libmicrohttpd's own timeout counts idle time only: any byte restarts it (MHD_OPTION_CONNECTION_TIMEOUT). Its
/// connections cannot be closed from outside either, so a connection past its deadline gets `shutdown(2)`: MHD's next
/// read sees the end of the stream and MHD closes the connection itself. The deadlines, the timer and MHD's close
/// callback share one mutex, and MHD closes a socket only after that callback returned (daemon.c,
/// MHD_cleanup_connections), so a socket is never shut down after its number could have been reused.
///
/// The clock of a connection's first request starts at the accept; the request line of a later one restarts it; from
/// the end of one answer to the next request line a kept-alive connection has `idleSeconds` more, as MHD closes a
/// silent one after those anyway.
///
/// The check runs on a thread of its own that waits on a semaphore between rounds, which `stop` signals. Why not a
/// dispatch timer: libdispatch opens descriptors of its own for timers the first time one is used, and a descriptor
/// number reused under a socket just closed defeats checks that the socket is gone.
final class HTTPReceiveDeadlines: Sendable {
    private struct Tracked {
        let socket: Int32
        /// When the request being received must be complete; nil while the handler runs or the answer is sent.
        var deadline: ContinuousClock.Instant?
    }

    private let seconds: Int
    private let idleSeconds: Int
    private let tracked = Mutex<[UInt: Tracked]>([:])
    private let stopping = Atomic<Bool>(false)
    /// Signalled by `stop`, so the checking thread ends at once instead of at its next round.
    private let stopped = DispatchSemaphore(value: 0)
    /// Connections shut down for missing their deadline (for tests and metrics).
    let expired = Atomic<Int>(0)

    /// Deadlines of `seconds` (connections kept alive get `idleSeconds` more between requests), checked every
    /// quarter of `seconds`, at most every second.
    init(seconds: Int, idleSeconds: Int) {
        self.seconds = seconds
        self.idleSeconds = idleSeconds
        let interval = DispatchTimeInterval.milliseconds(min(1000, max(50, seconds * 250)))
        let thread = Thread { [self] in
            while stopped.wait(timeout: .now() + interval) == .timedOut { shutDownExpired() }
        }
        thread.name = "auth-handler-http-deadlines"
        thread.start()
    }

    /// Stops checking; connections still tracked are left to MHD. Call once the daemons have stopped.
    func stop() {
        guard !stopping.exchange(true, ordering: .relaxed) else { return }
        stopped.signal()
    }

    /// A connection was accepted (MHD_CONNECTION_NOTIFY_STARTED): its first request is due within `seconds`.
    func connectionStarted(_ connection: OpaquePointer, socket: Int32) {
        guard socket >= 0 else { return }
        let due = ContinuousClock.now + .seconds(seconds)
        tracked.withLock { $0[UInt(bitPattern: connection)] = Tracked(socket: socket, deadline: due) }
    }

    /// A request line arrived: the rest of the request is due within `seconds`, or sooner if it already was.
    func requestLineArrived(_ connection: OpaquePointer) {
        let due = ContinuousClock.now + .seconds(seconds)
        tracked.withLock { table in
            guard let current = table[UInt(bitPattern: connection)] else { return }
            table[UInt(bitPattern: connection)]?.deadline = current.deadline.map { min($0, due) } ?? due
        }
    }

    /// The request was received in full: no deadline while it is handled and answered.
    func requestReceived(_ connection: OpaquePointer) {
        tracked.withLock { $0[UInt(bitPattern: connection)]?.deadline = nil }
    }

    /// The answer was sent (MHD_OPTION_NOTIFY_COMPLETED): the next request is due within `idleSeconds + seconds`.
    func answered(_ connection: OpaquePointer) {
        let due = ContinuousClock.now + .seconds(idleSeconds + seconds)
        tracked.withLock { $0[UInt(bitPattern: connection)]?.deadline = due }
    }

    /// MHD is closing the connection (MHD_CONNECTION_NOTIFY_CLOSED); its socket is closed after this returns.
    func connectionClosed(_ connection: OpaquePointer) {
        _ = tracked.withLock { $0.removeValue(forKey: UInt(bitPattern: connection)) }
    }

    /// Shuts down every connection past its deadline, under the mutex that `connectionClosed` waits on.
    private func shutDownExpired() {
        let now = ContinuousClock.now
        tracked.withLock { table in
            for (key, entry) in table {
                guard let deadline = entry.deadline, deadline <= now else { continue }
                table[key]?.deadline = nil
                // MHD owns the socket; shutdown(2) ends its stream without closing the descriptor.
                _ = try? FileDescriptor.borrowing(entry.socket, subject: "connection fd \(entry.socket)") {
                    (socket) throws(SystemCallError) in
                    try socket.call("shutdown") { shutdown($0, Int32(SHUT_RDWR)) }
                }
                expired.add(1, ordering: .relaxed)
            }
        }
    }
}
