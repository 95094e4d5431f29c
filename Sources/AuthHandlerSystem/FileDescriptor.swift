import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An open file descriptor owned by this one value, closed exactly once: by `close()`, or when the value goes.
///
/// Every call on the descriptor goes through `SystemCall` (EINTR retried, failures carry the call and `errno`).
/// Handing the descriptor to a C library that takes ownership of it, as libmicrohttpd does with
/// `MHD_OPTION_LISTEN_SOCKET`, is the explicit step `relinquish()`: from then on this value neither uses nor closes
/// it. Why it matters: a second close of a recycled descriptor number closes whatever another thread opened
/// meanwhile, and libmicrohttpd aborts the process when one of its own descriptors fails with `EBADF`.
package final class FileDescriptor: Sendable {
    private enum Ownership: UInt8, AtomicRepresentable {
        case open, closed, relinquished
    }

    /// The descriptor's number; valid while `ownership` is `.open`.
    private let number: Int32
    private let ownership = Atomic<Ownership>(.open)
    /// What the descriptor is, for error messages: a path, a listen address or `"fd 3"`.
    package let subject: String

    /// Takes ownership of the open descriptor `number`, e.g. one inherited from systemd or returned by a C library.
    package init(owning number: Int32, subject: String) {
        self.number = number
        self.subject = subject
    }

    /// Opens `path` (open(2)); `mode` applies when `flags` hold `O_CREAT`.
    package convenience init(opening path: String, flags: Int32, mode: mode_t = 0) throws(SystemCallError) {
        let number = try SystemCall.run("open", subject: path) { open(path, flags, mode) }
        self.init(owning: number, subject: path)
    }

    /// A new socket (socket(2)); `name` is the call as errors show it, e.g. `"socket(AF_UNIX, SOCK_DGRAM)"`.
    package convenience init(socket family: Int32, type: Int32, name: String = "socket", subject: String)
        throws(SystemCallError)
    {
        let number = try SystemCall.run(name, subject: subject) { Glibc.socket(family, type, 0) }
        self.init(owning: number, subject: subject)
    }

    /// Runs `body` with a value for the open descriptor `number` that another owner closes, e.g. stderr; the value
    /// never closes it.
    package static func borrowing<Result, Failure: Error>(
        _ number: Int32, subject: String, _ body: (FileDescriptor) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let borrowed = FileDescriptor(owning: number, subject: subject)
        defer { _ = borrowed.relinquish() }
        return try body(borrowed)
    }

    deinit {
        if ownership.compareExchange(expected: .open, desired: .closed, ordering: .acquiringAndReleasing).exchanged {
            _ = Glibc.close(number)
        }
    }

    /// Whether this value still owns an open descriptor.
    var isOpen: Bool { ownership.load(ordering: .acquiring) == .open }

    /// Runs the system call `body` on the descriptor through `SystemCall.run`; `EBADF` once it is closed or handed
    /// over, without calling `body`.
    @discardableResult
    package func call<Result: BinaryInteger>(_ name: String, _ body: (Int32) -> Result) throws(SystemCallError)
        -> Result
    {
        guard isOpen else { throw SystemCallError(call: name, subject: subject, errorNumber: EBADF) }
        return try SystemCall.run(name, subject: subject) { body(number) }
    }

    /// Closes the descriptor (close(2)); later calls, and the value going, do nothing.
    ///
    /// Not retried on `EINTR`: Linux releases the descriptor before it reports the interruption, so a retry could
    /// close a number another thread has reused (close(2), "Dealing with error returns from close()").
    package func close() throws(SystemCallError) {
        guard ownership.compareExchange(expected: .open, desired: .closed, ordering: .acquiringAndReleasing).exchanged
        else { return }
        guard Glibc.close(number) == 0 else {
            let failure = errno
            guard failure != EINTR else { return }
            throw SystemCallError(call: "close", subject: subject, errorNumber: failure)
        }
    }

    /// Hands the descriptor to a new owner, e.g. a C library that closes it itself; nil when it is not open.
    package func relinquish() -> Int32? {
        ownership.compareExchange(expected: .open, desired: .relinquished, ordering: .acquiringAndReleasing).exchanged
            ? number : nil
    }

    /// The file status (fstat(2)).
    package func status() throws(SystemCallError) -> stat {
        var status = stat()
        try call("fstat") { fstat($0, &status) }
        return status
    }

    /// Sets the file mode (fchmod(2)).
    package func setMode(_ mode: mode_t) throws(SystemCallError) {
        try call("fchmod") { fchmod($0, mode) }
    }

    /// Writes all of `bytes` (write(2)), continuing after short writes. For blocking descriptors (regular files):
    /// `EAGAIN` is an error here, not a reason to spin.
    package func writeAll(_ bytes: [UInt8]) throws(SystemCallError) {
        var offset = 0
        while offset < bytes.count {
            offset += try call("write") { fd in
                bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            }
        }
    }

    /// Reads up to `limit` bytes (read(2)).
    package func read(upTo limit: Int) throws(SystemCallError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: limit)
        let count = try call("read") { fd in buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        }
        return Array(buffer.prefix(count))
    }

    /// Flushes written data to the device (fsync(2)).
    package func synchronize() throws(SystemCallError) {
        try call("fsync") { fsync($0) }
    }
}
