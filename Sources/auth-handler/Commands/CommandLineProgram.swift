import AuthHandlerCore
import AuthHandlerSystem

/// The `auth-handler` program: parses the command line and dispatches to the command.
struct CommandLineProgram: Sendable {
    /// The environment and output streams.
    var context: CommandContext

    /// Creates the program.
    init(context: CommandContext) {
        self.context = context
    }

    /// Runs the command named by `arguments` (without the program name) and returns the exit code.
    func run(arguments: [String]) async -> AuthHandlerExitCode {
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
            return await ServeCommand.run(options, context: context)
        case .once(let options):
            return await OnceCommand.run(options, context: context)
        case .fakeIdP(let options):
            return await FakeIdPCommand.run(options, context: context)
        case .demo(let options):
            return await DemoCommand.run(options, context: context)
        case .login(let options):
            return await LoginCommand.run(options, context: context)
        case .accounts(let options):
            return await AccountsCommand.run(options, context: context)
        case .token(let options):
            return await TokenCommand.run(options, context: context)
        case .logout(let options):
            return await LogoutCommand.run(options, context: context)
        }
    }

}
