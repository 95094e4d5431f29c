import AuthHandler
import FakeIdP
import Foundation

var runners = CommandRunners()
runners.serve = { options, context in await ServeCommand.run(options, context: context) }
runners.once = { options, context in await OnceCommand.run(options, context: context) }
runners.fakeIdP = { options, context in await FakeIdPCommand.run(options, context: context) }
runners.demo = { options, context in await DemoCommand.run(options, context: context) }
let context = CommandContext(environment: ProcessInfo.processInfo.environment, output: .standard)
let program = CommandLineProgram(runners: runners, context: context)
let exitCode = await program.run(arguments: Array(CommandLine.arguments.dropFirst()))
exit(exitCode.rawValue)
