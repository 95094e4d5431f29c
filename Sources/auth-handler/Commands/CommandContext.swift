/// What a running command may use: the environment and the output streams.
struct CommandContext: Sendable {
    /// The process environment.
    var environment: [String: String]
    /// Standard output and standard error.
    var output: CommandOutput

    /// Creates a context.
    init(environment: [String: String], output: CommandOutput) {
        self.environment = environment
        self.output = output
    }

    /// Reports a failure as one stderr line and returns `code`, for `return context.fail(.config, "...")`.
    func fail(_ code: AuthHandlerExitCode, _ message: String) -> AuthHandlerExitCode {
        output.errorLine(message)
        return code
    }
}
