import Foundation
import TestSupport
import Testing

/// What a finished `auth-handler` process printed and returned.
struct CLIProcessResult {
    let status: Int32
    let standardOutput: String
    let standardError: String
}

/// Runs the built `auth-handler` binary as a real process.
enum CLIBinary {
    /// Runs the binary with `arguments` and a minimal, fixed environment plus `environment`, in `directory`, and
    /// waits for it to exit.
    static func run(
        _ arguments: [String], environment: [String: String] = [:], in directory: ConfigTemporaryDirectory
    ) async throws -> CLIProcessResult {
        let process = try TestProcess(
            authHandler: arguments, environment: environment, directory: URL(fileURLWithPath: directory.path))
        let status = await process.exitCode()
        return CLIProcessResult(
            status: status, standardOutput: process.standardOutput, standardError: process.standardError)
    }
}

@Suite(.serialized)
struct CLIProcessTests {
    @Test func versionPrintsTheVersion() async throws {
        let directory = try ConfigTemporaryDirectory()
        defer { directory.remove() }
        let result = try await CLIBinary.run(["--version"], in: directory)
        #expect(result.status == 0)
        #expect(result.standardOutput == "auth-handler 0.1.0\n")
        #expect(result.standardError == "")
    }

    @Test func helpListsTheCommands() async throws {
        let directory = try ConfigTemporaryDirectory()
        defer { directory.remove() }
        let result = try await CLIBinary.run(["--help"], in: directory)
        #expect(result.status == 0)
        for command in ["serve", "--once", "fake-idp", "demo", "check-config", "--version"] {
            #expect(result.standardOutput.contains(command), "\(command) missing from --help")
        }
        #expect(result.standardError == "")
    }

    /// Runs in a temporary working directory, so it also proves relative secret paths follow the config file.
    @Test func exampleConfigChecksOK() async throws {
        let directory = try ConfigTemporaryDirectory()
        defer { directory.remove() }
        let result = try await CLIBinary.run(["check-config", "--config", ConfigFixture.examplePath], in: directory)
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
        #expect(result.standardOutput == "config OK: \(ConfigFixture.examplePath)\n")
        #expect(result.standardError == "")
    }

    @Test func brokenConfigNamesEveryBadPathAndExits78() async throws {
        let directory = try ConfigTemporaryDirectory()
        defer { directory.remove() }
        let config = try directory.write(
            "config.json",
            """
            {
              "publicURL": "https//auth.example.com",
              "allowedRedirectURLs": ["https://app.example.com/done"],
              "providers": {
                "google.com": {"clientId": "c", "clientSecret": {"file": "missing-secret"}},
                "oidc.corp": {"protocol": "saml", "issuer": "https://corp.example", "clientId": "c",
                              "clientSecret": {"env": "CORP_SECRET"}}
              }
            }
            """)
        let result = try await CLIBinary.run(
            ["check-config", "--config", config], environment: ["CORP_SECRET": "corp-secret-value"], in: directory)
        #expect(result.status == 78)
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        for path in [
            #"providers["google.com"].clientSecret.file: "#, #"providers["oidc.corp"].protocol: "#, "publicURL: ",
        ] {
            #expect(lines.contains { $0.hasPrefix(path) }, "no line for \(path) in \(lines)")
        }
        #expect(lines.count == 3)
        #expect(!result.standardOutput.contains("corp-secret-value"))
        #expect(result.standardError.split(separator: "\n").count == 1)
        #expect(result.standardError.hasPrefix("auth-handler: config '\(config)' has 3 problems"))
    }

    @Test func missingConfigFileExits78WithOneLine() async throws {
        let directory = try ConfigTemporaryDirectory()
        defer { directory.remove() }
        let missing = (directory.path as NSString).appendingPathComponent("absent.json")
        for (arguments, environment) in [
            (["check-config", "--config", missing], [:]),
            (["check-config"], ["AUTH_HANDLER_CONFIG": missing]),
        ] {
            let result = try await CLIBinary.run(arguments, environment: environment, in: directory)
            #expect(result.status == 78)
            #expect(result.standardOutput == "")
            #expect(
                result.standardError
                    == "auth-handler: config file '\(missing)' does not exist; pass --config FILE or set AUTH_HANDLER_CONFIG\n"
            )
        }
    }

    @Test func badOptionExits64WithOneLine() async throws {
        let directory = try ConfigTemporaryDirectory()
        defer { directory.remove() }
        let result = try await CLIBinary.run(["--prot", "8080"], in: directory)
        #expect(result.status == 64)
        #expect(result.standardOutput == "")
        #expect(
            result.standardError
                == "auth-handler: unknown option '--prot' (did you mean '--port'?); see 'auth-handler --help'\n")
    }

    @Test func onceWithoutCredentialsExits78WithOneLine() async throws {
        let directory = try ConfigTemporaryDirectory()
        defer { directory.remove() }
        let config = try directory.write("config.json", #"{"providers": {}}"#)
        let result = try await CLIBinary.run(
            ["--once", "--provider", "google.com", "--no-browser"], environment: ["AUTH_HANDLER_CONFIG": config],
            in: directory)
        #expect(result.status == 78)
        #expect(result.standardOutput == "")
        #expect(
            result.standardError
                == "auth-handler: google.com has no credentials and \(config) has no providers.google.com entry: "
                + "pass --client-id ID and --client-secret-file FILE (or set AUTH_HANDLER_CLIENT_ID and "
                + "AUTH_HANDLER_CLIENT_SECRET_FILE), or a --config file with a providers.google.com entry\n")
    }

    @Test func onceWithReservedParamExits64BeforeAnyURL() async throws {
        let directory = try ConfigTemporaryDirectory()
        defer { directory.remove() }
        let config = try directory.write("config.json", "{}")
        let secret = try directory.write("secret", "s")
        let result = try await CLIBinary.run(
            [
                "--once", "--provider", "github.com", "--no-browser", "--client-id", "x", "--client-secret-file",
                secret,
                "--param", "State=x",
            ], environment: ["AUTH_HANDLER_CONFIG": config], in: directory)
        #expect(result.status == 64)
        #expect(result.standardOutput == "")
        #expect(result.standardError.hasPrefix("auth-handler: the custom parameter \"State\" is reserved"))
        #expect(result.standardError.split(separator: "\n").count == 1, "\(result.standardError)")
    }
}
