import AuthHandler
import FakeIdP
import Foundation

// `serve`, `--once` and `demo` are plugged in here as they land; until then they report
// "not available in this build yet" and exit 64.
var runners = CommandRunners()
runners.fakeIdP = { options, context in await FakeIdPCommand.run(options, context: context) }
let context = CommandContext(environment: ProcessInfo.processInfo.environment, output: .standard)
let program = CommandLineProgram(runners: runners, context: context)
let exitCode = await program.run(arguments: Array(CommandLine.arguments.dropFirst()))
exit(exitCode.rawValue)
