import AuthHandlerCore
import FakeIdP

/// `auth-handler check-config`: validates a config file and prints every problem; no network.
struct CheckConfigCommand: Sendable {
    /// Which file to check.
    var options: CheckConfigOptions

    /// Creates the command.
    init(options: CheckConfigOptions) {
        self.options = options
    }

    /// Prints each problem as `path: message` (warnings prefixed `warning: `) on stdout, then `config OK: FILE`
    /// or one summary line on stderr; returns ``AuthHandlerExitCode/config`` when there is any error.
    func run(in context: CommandContext) -> AuthHandlerExitCode {
        let path = options.config.path
        let report: ConfigReport
        do {
            report = try ConfigLoader(environment: SecretEnvironment(variables: context.environment)).load(fileAt: path)
        } catch {
            return context.fail(.config, error.description)
        }
        for problem in report.problems { context.output.line(problem.description) }
        let errorCount = report.errors.count
        if errorCount == 0 {
            context.output.line("config OK: \(path)")
            return .success
        }
        let noun = errorCount == 1 ? "problem" : "problems"
        return context.fail(
            .config, "config '\(path)' has \(errorCount) \(noun) (listed above); fix and run check-config again")
    }
}
