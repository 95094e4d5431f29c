import AuthHandlerSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Why `HTTPServer` could not start: the call that failed, the address involved and `errno` when there is one.
package struct HTTPServerError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The failing call or step, e.g. `"bind"` or `"MHD_start_daemon"`.
    package let operation: String
    /// The listen address or socket involved, e.g. `"127.0.0.1:8080"` or `"fd 3"`.
    package let subject: String
    /// `errno` after a failed system call, else nil.
    package let errorNumber: Int32?
    /// A plain explanation.
    package let detail: String

    package init(operation: String, subject: String, errorNumber: Int32? = nil, detail: String) {
        self.operation = operation
        self.subject = subject
        self.errorNumber = errorNumber
        self.detail = detail
    }

    /// The error of a failed system call.
    init(_ error: SystemCallError) {
        self.init(operation: error.call, subject: error.subject, errorNumber: error.errorNumber, detail: error.reason)
    }

    /// Runs `body`, whose failed system call becomes this error.
    @discardableResult
    static func converting<Result>(_ body: () throws(SystemCallError) -> Result) throws(HTTPServerError) -> Result {
        do throws(SystemCallError) {
            return try body()
        } catch {
            throw HTTPServerError(error)
        }
    }

    /// An error for a failed library call that leaves `errno`, reading it now.
    static func systemCall(_ operation: String, subject: String) -> HTTPServerError {
        let number = errno
        return HTTPServerError(
            operation: operation, subject: subject, errorNumber: number, detail: String(cString: strerror(number)))
    }

    package var description: String {
        if let errorNumber {
            return "\(operation) \(subject) failed: \(detail) (errno \(errorNumber))"
        }
        return "\(operation) \(subject) failed: \(detail)"
    }
}
