#if canImport(Glibc)
    import Glibc
#endif

/// A system call that failed: its name, what it was about and the `errno` it left.
public struct SystemCallError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The call, e.g. `"sendto"`.
    public let call: String
    /// What the call was about, e.g. the socket path.
    public let subject: String
    /// `errno` after the call.
    public let errorNumber: Int32

    public init(call: String, subject: String, errorNumber: Int32) {
        self.call = call
        self.subject = subject
        self.errorNumber = errorNumber
    }

    public var description: String {
        "\(call) \(subject) failed: \(String(cString: strerror(errorNumber))) (errno \(errorNumber))"
    }
}

/// The seam for raw system calls of the service layer: each call is retried on `EINTR`, and a failure becomes a
/// `SystemCallError` carrying the call's name and `errno` (swift-nio's `Posix` enum is the model).
enum SystemCall {
    /// Runs `body`, a call that returns -1 and sets `errno` on failure, until it is not interrupted.
    @discardableResult
    static func run<Result: BinaryInteger>(
        _ call: String, subject: String, _ body: () -> Result
    ) throws(SystemCallError) -> Result {
        while true {
            let result = body()
            if result != -1 { return result }
            let number = errno
            if number == EINTR { continue }
            throw SystemCallError(call: call, subject: subject, errorNumber: number)
        }
    }
}
