/// A wrong command line: one line saying what was wrong and what to do; exits with ``AuthHandlerExitCode/usage``.
public struct CommandLineUsageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong, and what to do instead.
    public var message: String

    /// Creates the error; `message` should end by saying what to do.
    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
