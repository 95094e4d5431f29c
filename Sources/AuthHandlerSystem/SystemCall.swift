#if canImport(Glibc)
    import Glibc
#endif

/// A system call that failed: its name, what it was about and the `errno` it left.
package struct SystemCallError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The call, e.g. `"sendto"`.
    package let call: String
    /// What the call was about, e.g. the socket path.
    package let subject: String
    /// `errno` after the call.
    package let errorNumber: Int32

    package init(call: String, subject: String, errorNumber: Int32) {
        self.call = call
        self.subject = subject
        self.errorNumber = errorNumber
    }

    /// `strerror(3)`'s text for `errorNumber`, e.g. `"No such file or directory"`.
    package var reason: String { String(cString: strerror(errorNumber)) }

    /// The reason with its number, e.g. `"No such file or directory (errno 2)"`.
    package var reasonWithNumber: String { "\(reason) (errno \(errorNumber))" }

    package var description: String {
        "\(call) \(subject) failed: \(reasonWithNumber)"
    }
}

/// The seam for raw system calls: each call is retried on `EINTR`, and a failure becomes a `SystemCallError` carrying
/// the call's name and `errno` (swift-nio's `Posix` enum is the model). Calls on a descriptor go through
/// `FileDescriptor`, which owns it.
package enum SystemCall {
    /// Runs `body`, a call that returns -1 and sets `errno` on failure, until it is not interrupted.
    @discardableResult
    package static func run<Result: BinaryInteger>(
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

    /// Sets `signal`'s disposition to ignore (sigaction(2) with `SIG_IGN`).
    static func ignore(signal number: Int32, name: String) throws(SystemCallError) {
        var ignore = sigaction()
        ignore.__sigaction_handler = .init(sa_handler: SIG_IGN)
        try run("sigaction(\(name), SIG_IGN)", subject: "") { sigaction(number, &ignore, nil) }
    }

    /// The file status of `path` itself, not of what a symlink there points to (lstat(2)).
    static func linkStatus(_ path: String) throws(SystemCallError) -> stat {
        var status = stat()
        try run("lstat", subject: path) { lstat(path, &status) }
        return status
    }

    /// Whether this user may access `path` as `mode` asks (access(2)); false on any failure.
    static func isAccessible(_ path: String, _ mode: Int32) -> Bool {
        (try? run("access", subject: path) { access(path, mode) }) != nil
    }

    /// A new hard link `path` to `existing` (link(2)); fails with `EEXIST` when `path` exists.
    package static func link(_ existing: String, to path: String) throws(SystemCallError) {
        try run("link", subject: path) { Glibc.link(existing, path) }
    }

    /// Gives `existing` the name `path`, replacing what had it, in one step (rename(2)).
    package static func rename(_ existing: String, to path: String) throws(SystemCallError) {
        try run("rename", subject: path) { Glibc.rename(existing, path) }
    }

    /// Removes the name `path` (unlink(2)).
    package static func unlink(_ path: String) throws(SystemCallError) {
        try run("unlink", subject: path) { Glibc.unlink(path) }
    }
}
