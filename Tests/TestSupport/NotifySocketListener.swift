import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A datagram socket standing in for systemd's `$NOTIFY_SOCKET` (sd_notify(3)): it records every message with its
/// arrival time, read with recv(2) on a thread of its own.
///
/// `@unchecked Sendable`: the descriptor is written once in `init`; everything mutable is behind `Mutex` or in an
/// `AsyncStream`.
package final class NotifySocketListener: @unchecked Sendable {
    /// One message and when it arrived.
    package struct Datagram: Sendable {
        package let text: String
        package let received: ContinuousClock.Instant
        /// Its `VARIABLE=VALUE` assignments.
        package var assignments: [String: String] {
            var result: [String: String] = [:]
            for line in text.split(separator: "\n") {
                guard let equals = line.firstIndex(of: "=") else { continue }
                result[String(line[..<equals])] = String(line[line.index(after: equals)...])
            }
            return result
        }
    }

    /// The value to put in `$NOTIFY_SOCKET`: the path, or `@name` for the abstract namespace.
    package let environmentValue: String
    private let fd: Int32
    private let all = Mutex<[Datagram]>([])
    private let stream: AsyncStream<Datagram>
    private let stopped = Atomic<Bool>(false)
    private let finished: AsyncStream<Void>

    /// Binds at `path` (`@name`: in the abstract namespace) and starts reading; `observe` runs on the reading thread
    /// as each datagram arrives, before anything else sees it.
    package init(at path: String, observe: (@Sendable (String) -> Void)? = nil) throws {
        environmentValue = path
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestProcessError("socket: errno \(errno)") }
        let bound = Self.withAddress(path) { Glibc.bind(fd, $0, $1) }
        guard bound == 0 else {
            let number = errno
            Glibc.close(fd)
            throw TestProcessError("bind \(path): errno \(number)")
        }
        self.fd = fd
        let (stream, sink) = AsyncStream<Datagram>.makeStream()
        self.stream = stream
        let (finished, finishedSink) = AsyncStream<Void>.makeStream()
        self.finished = finished
        // The thread holds `self` until it has closed the socket.
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !stopped.load(ordering: .acquiring) {
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count < 0, errno == EINTR { continue }
                if count <= 0 { continue }
                let datagram = Datagram(
                    text: String(decoding: buffer[..<count], as: UTF8.self), received: ContinuousClock.now)
                observe?(datagram.text)
                all.withLock { $0.append(datagram) }
                sink.yield(datagram)
            }
            sink.finish()
            Glibc.close(fd)
            finishedSink.finish()
        }
    }

    /// Every datagram so far, in order.
    package var received: [Datagram] { all.withLock { $0 } }

    /// Waits for the next datagram that satisfies `matches` (earlier ones are skipped); nil once closed.
    package func next(where matches: (Datagram) -> Bool) async -> Datagram? {
        for await datagram in stream where matches(datagram) { return datagram }
        return nil
    }

    /// Waits for the next datagram that holds `VARIABLE=VALUE` (e.g. `"READY=1"`); nil when none came within
    /// `limit`, after which the listener is closed (a test that waited in vain has failed).
    package func next(_ assignment: String, within limit: Duration = .seconds(30)) async -> Datagram? {
        let timer = Task {
            try? await Task.sleep(for: limit)
            if !Task.isCancelled { await self.close() }
        }
        defer { timer.cancel() }
        return await next { $0.text.split(separator: "\n").contains(Substring(assignment)) }
    }

    /// Stops reading and closes the socket (an empty datagram to itself wakes the blocked recv(2)).
    package func close() async {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let waker = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        if waker >= 0 {
            _ = Self.withAddress(environmentValue) { sendto(waker, nil, 0, 0, $0, $1) }
            Glibc.close(waker)
        }
        for await _ in finished {}
        if !environmentValue.hasPrefix("@") { unlink(environmentValue) }
    }

    private static func withAddress<T>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        let abstract = path.hasPrefix("@")
        if abstract { bytes[0] = 0 }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.prefix(raw.count - 1).enumerated() { raw[index] = byte }
        }
        let length = 2 + bytes.count + (abstract ? 0 : 1)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(length)) }
        }
    }
}
