import Foundation
import Synchronization
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP
@testable import AuthHandlerProtocols
@testable import AuthHandlerSystem
@testable import auth_handler

/// Captures what a command writes, for in-process tests.
final class CLICapturedOutput: Sendable {
    private let buffers = Mutex<(output: String, error: String)>(("", ""))

    var output: CommandOutput {
        CommandOutput(
            writeOutput: { text in self.buffers.withLock { $0.output += text } },
            writeError: { text in self.buffers.withLock { $0.error += text } })
    }

    var standardOutput: String { buffers.withLock { $0.output } }
    var standardError: String { buffers.withLock { $0.error } }
}

struct CLIProgramTests {
    private func run(
        _ arguments: [String], environment: [String: String] = [:]
    ) async -> (AuthHandlerExitCode, CLICapturedOutput) {
        let captured = CLICapturedOutput()
        let program = CommandLineProgram(context: CommandContext(environment: environment, output: captured.output))
        return (await program.run(arguments: arguments), captured)
    }

    @Test func exitCodesMatchTheDocumentation() {
        #expect(AuthHandlerExitCode.allCases.map(\.rawValue) == [0, 1, 2, 3, 4, 64, 78])
    }

    @Test func helpAndVersionGoToStandardOutput() async {
        let (versionCode, version) = await run(["--version"])
        #expect(versionCode == .success)
        #expect(version.standardOutput == "auth-handler \(AuthHandlerVersion.string)\n")
        for topic in [nil] + AuthHandlerCommand.Name.allCases {
            let arguments = topic.map { [$0.rawValue, "--help"] } ?? ["--help"]
            let (code, help) = await run(arguments)
            #expect(code == .success)
            #expect(help.standardOutput.hasPrefix(topic == nil ? "auth-handler " : "Usage"))
            #expect(help.standardError == "")
        }
    }

    @Test func everyOptionAppearsInTheHelp() {
        let allHelp = ([nil] + AuthHandlerCommand.Name.allCases).map { HelpText.text(for: $0) }.joined()
        for option in CommandLineOption.allCases {
            #expect(allHelp.contains("--\(option.rawValue)"), "--\(option.rawValue) is undocumented")
        }
    }

    @Test func checkConfigReportsEveryProblemAndExits78() async throws {
        let directory = try ConfigTemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(
            "config.json",
            #"{"publicURL": "x", "providers": {"github.com": {"clientId": "c", "clientSecret": "plain"}}}"#)
        let (code, captured) = await run(["check-config", "--config", path])
        #expect(code == .config)
        #expect(
            captured.standardOutput.split(separator: "\n").map(String.init) == [
                #"publicURL: "x" is not an absolute http(s) URL; expected an absolute http(s) origin such as https://auth.example.com"#,
                "warning: allowedRedirectURLs: not set; serve will refuse every redirectUrl until you list some",
                #"warning: providers["github.com"].clientSecret: plain-string secret in the config file; prefer {"file": PATH}, {"env": NAME} or {"credential": NAME}"#,
            ])
        #expect(captured.standardError.split(separator: "\n").count == 1)
        #expect(captured.standardError.hasPrefix("auth-handler: config '\(path)' has 1 problem"))
    }

    @Test func checkConfigUsesTheEnvironmentForSecretsAndConfigPath() async throws {
        let directory = try ConfigTemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(
            "config.json",
            #"""
            {"publicURL": "https://a.example", "allowedRedirectURLs": ["https://app.example/"],
             "providers": {"github.com": {"clientId": "c", "clientSecret": {"env": "GH_SECRET"}}}}
            """#)
        let (code, captured) = await run(
            ["check-config"], environment: ["AUTH_HANDLER_CONFIG": path, "GH_SECRET": "value"])
        #expect(code == .success)
        #expect(captured.standardOutput == "config OK: \(path)\n")
        #expect(captured.standardError == "")
    }
}
