/// A wrong command line: one line saying what was wrong and what to do; exits with ``AuthHandlerExitCode/usage``.
struct CommandLineUsageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong, and what to do instead.
    var message: String

    /// Creates the error; `message` should end by saying what to do.
    init(_ message: String) {
        self.message = message
    }

    var description: String { message }
}
