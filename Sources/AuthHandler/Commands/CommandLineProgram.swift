/// The `auth-handler` program: parses the command line and dispatches to the command.
public struct CommandLineProgram: Sendable {
    /// The long-running commands.
    public var runners: CommandRunners
    /// The environment and output streams.
    public var context: CommandContext

    /// Creates the program.
    public init(runners: CommandRunners, context: CommandContext) {
        self.runners = runners
        self.context = context
    }

    /// Runs the command named by `arguments` (without the program name) and returns the exit code.
    public func run(arguments: [String]) async -> AuthHandlerExitCode {
        let command: AuthHandlerCommand
        do {
            command = try CommandLineParser(environment: context.environment).parse(arguments)
        } catch {
            return context.fail(.usage, error.message)
        }
        switch command {
        case .help(let topic):
            context.output.writeOutput(HelpText.text(for: topic))
            return .success
        case .version:
            context.output.line("auth-handler \(AuthHandlerVersion.string)")
            return .success
        case .checkConfig(let options):
            return CheckConfigCommand(options: options).run(in: context)
        case .serve(let options):
            return await run(runners.serve, options, name: "'serve'")
        case .once(let options):
            return await run(runners.once, options, name: "'--once'")
        case .fakeIdP(let options):
            return await run(runners.fakeIdP, options, name: "'fake-idp'")
        case .demo(let options):
            return await run(runners.demo, options, name: "'demo'")
        case .login(let options):
            return await LoginCommand.run(options, context: context)
        }
    }

    private func run<Options>(
        _ runner: CommandRunners.Runner<Options>?, _ options: Options, name: String
    ) async -> AuthHandlerExitCode {
        guard let runner else {
            return context.fail(
                .usage,
                "\(name) is not available in this program; run the auth-handler executable, which has every command")
        }
        return await runner(options, context)
    }
}
