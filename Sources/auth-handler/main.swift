import Foundation

let context = CommandContext(environment: ProcessInfo.processInfo.environment, output: .standard)
let program = CommandLineProgram(context: context)
let exitCode = await program.run(arguments: Array(CommandLine.arguments.dropFirst()))
exit(exitCode.rawValue)
