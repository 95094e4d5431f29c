import Foundation
import Synchronization
import Testing

@testable import AuthHandler

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
        _ arguments: [String], runners: CommandRunners = CommandRunners(), environment: [String: String] = [:]
    ) async -> (AuthHandlerExitCode, CLICapturedOutput) {
        let captured = CLICapturedOutput()
        let program = CommandLineProgram(
            runners: runners, context: CommandContext(environment: environment, output: captured.output))
        return (await program.run(arguments: arguments), captured)
    }

    @Test func exitCodesMatchTheContract() {
        #expect(AuthHandlerExitCode.allCases.map(\.rawValue) == [0, 1, 2, 3, 64, 78])
    }

    @Test func missingRunnersReportNotAvailable() async {
        for (arguments, name) in [
            (["serve"], "'serve'"), (["--once", "--provider", "github.com"], "'--once'"), (["fake-idp"], "'fake-idp'"),
            (["demo"], "'demo'"),
        ] {
            let (code, captured) = await run(arguments)
            #expect(code == .usage)
            #expect(
                captured.standardError
                    == "auth-handler: \(name) is not available in this program; run the auth-handler executable, which has every command\n"
            )
            #expect(captured.standardOutput == "")
        }
    }

    @Test func runnersReceiveTheirOptionsAndDecideTheExitCode() async {
        let received = Mutex<[String]>([])
        let runners = CommandRunners(
            serve: { options, _ in
                received.withLock { $0.append("serve \(options.config.path)") }
                return .success
            },
            once: { options, context in
                received.withLock { $0.append("once \(options.providerID) \(options.timeoutSeconds)") }
                return context.fail(.timedOut, "timed out after \(options.timeoutSeconds)s; run again")
            },
            fakeIdP: { options, _ in
                received.withLock { $0.append("fake-idp \(options.listen)") }
                return .success
            },
            demo: { options, _ in
                received.withLock { $0.append("demo \(options.headless)") }
                return .cancelled
            })
        #expect(await run(["--config", "/c.json"], runners: runners).0 == .success)
        let (onceCode, onceOutput) = await run(
            ["--once", "--provider", "google.com", "--timeout", "5"], runners: runners)
        #expect(onceCode == .timedOut)
        #expect(onceOutput.standardError == "auth-handler: timed out after 5s; run again\n")
        #expect(await run(["fake-idp", "--listen", "127.0.0.1:0"], runners: runners).0 == .success)
        #expect(await run(["demo", "--headless"], runners: runners).0 == .cancelled)
        #expect(
            received.withLock { $0 } == [
                "serve /c.json", "once google.com 5", "fake-idp 127.0.0.1:0", "demo true",
            ])
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
