import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP
@testable import auth_handler

/// A command line that must be refused, and text its one-line message must contain.
struct CLIUsageCase: Sendable, CustomTestStringConvertible {
    let arguments: [String]
    let expects: String

    var testDescription: String { arguments.joined(separator: " ") }
}

struct CLIParserTests {
    private func parse(_ arguments: [String], environment: [String: String] = [:]) throws(CommandLineUsageError)
        -> AuthHandlerCommand
    {
        try CommandLineParser(environment: environment).parse(arguments)
    }

    @Test func noArgumentsServesTheDefaultConfig() throws {
        #expect(
            try parse([])
                == .serve(ServeOptions(config: ConfigLocation(path: ConfigLocation.defaultPath, source: .defaultPath))))
    }

    @Test func configPathPrecedence() throws {
        let environment = ["AUTH_HANDLER_CONFIG": "/from/env.json"]
        #expect(
            try parse(["--config", "/a.json"], environment: environment)
                == .serve(ServeOptions(config: .init(path: "/a.json", source: .option))))
        #expect(
            try parse(["serve"], environment: environment)
                == .serve(ServeOptions(config: .init(path: "/from/env.json", source: .environment))))
        #expect(
            try parse(["check-config", "--config=/b.json"], environment: environment)
                == .checkConfig(CheckConfigOptions(config: .init(path: "/b.json", source: .option))))
        #expect(
            try parse(["check-config"], environment: ["AUTH_HANDLER_CONFIG": ""])
                == .checkConfig(
                    CheckConfigOptions(config: .init(path: "/etc/auth-handler/config.json", source: .defaultPath))))
    }

    @Test func onceWithEveryOption() throws {
        let command = try parse([
            "--once", "--provider", "twitter.com", "--port", "8765", "--scope", "a", "--scope=b", "--param",
            "screen_name=alice", "--param", "lang=", "--no-browser", "--timeout", "30", "--output", "/tmp/out.json",
            "--id-token-file", "/tmp/id", "--auth-type", "link", "--consumer-key", "ck", "--consumer-secret-file",
            "/tmp/cs",
        ])
        var expected = OnceOptions(
            config: ConfigLocation(path: ConfigLocation.defaultPath, source: .defaultPath), providerID: "twitter.com")
        expected.port = 8765
        expected.scopes = ["a", "b"]
        expected.parameters = [.init(name: "screen_name", value: "alice"), .init(name: "lang", value: "")]
        expected.noBrowser = true
        expected.timeoutSeconds = 30
        expected.outputPath = "/tmp/out.json"
        expected.linking = .init(idTokenFile: "/tmp/id", action: .link)
        expected.consumerKey = "ck"
        expected.consumerSecretFile = "/tmp/cs"
        #expect(command == .once(expected))
    }

    @Test func onceDefaultsAndServeOnceSpelling() throws {
        let command = try parse([
            "serve", "--once", "--provider", "google.com", "--client-id", "id", "--client-secret-file", "/s",
        ])
        guard case .once(let options) = command else {
            Issue.record("expected --once, got \(command)")
            return
        }
        #expect(options.port == 0)
        #expect(options.timeoutSeconds == 300)
        #expect(options.noBrowser == false)
        #expect(options.clientID == "id")
        #expect(options.clientSecretFile == "/s")
        #expect(options.linking == nil)
    }

    @Test func otherCommands() throws {
        #expect(try parse(["fake-idp"]) == .fakeIdP(FakeIdPOptions()))
        #expect(
            try parse(["fake-idp", "--listen", "[::1]:9000", "--config", "f.json"])
                == .fakeIdP(FakeIdPOptions(listen: ListenAddress(host: "::1", port: 9000), configPath: "f.json")))
        #expect(try parse(["demo"]) == .demo(DemoOptions(headless: false)))
        #expect(try parse(["demo", "--headless"]) == .demo(DemoOptions(headless: true)))
        #expect(try parse(["--version"]) == .version)
        #expect(try parse(["--help"]) == .help(nil))
        #expect(try parse(["-h"]) == .help(nil))
        #expect(try parse(["check-config", "--help"]) == .help(.checkConfig))
        #expect(try parse(["help", "fake-idp"]) == .help(.fakeIdP))
    }

    static let usageCases: [CLIUsageCase] = [
        .init(
            arguments: ["--prot"],
            expects: "unknown option '--prot' (did you mean '--port'?); see 'auth-handler --help'"),
        .init(arguments: ["-x"], expects: "unknown option '-x'"),
        .init(arguments: ["serv"], expects: "unknown command 'serv' (did you mean 'serve'?)"),
        .init(arguments: ["--config"], expects: "option '--config' needs a value"),
        .init(arguments: ["--config", "--once"], expects: "option '--config' needs a value"),
        .init(arguments: ["--config="], expects: "non-empty FILE"),
        .init(arguments: ["--config", "a", "--config", "b"], expects: "more than once"),
        .init(arguments: ["stray"], expects: "unknown command 'stray'"),
        .init(arguments: ["--config", "a", "check-config"], expects: "the command goes first"),
        .init(arguments: ["--provider", "google.com"], expects: "option '--provider' needs '--once'"),
        .init(arguments: ["--once"], expects: "'--once' needs '--provider ID'"),
        .init(arguments: ["--once", "--provider", "goggle.com"], expects: "unknown provider 'goggle.com'"),
        .init(
            arguments: ["--once", "--provider", "google.com", "--port", "http"],
            expects: "'--port' expects a port number"),
        .init(
            arguments: ["--once", "--provider", "google.com", "--port", "70000"],
            expects: "'--port' expects a port number"),
        .init(
            arguments: ["--once", "--provider", "google.com", "--timeout", "0"],
            expects: "'--timeout' expects a positive"),
        .init(
            arguments: ["--once", "--provider", "google.com", "--timeout", "1.5"],
            expects: "'--timeout' expects a positive"),
        .init(
            arguments: ["--once", "--provider", "google.com", "--param", "=x"], expects: "'--param' expects NAME=VALUE"),
        .init(
            arguments: ["--once", "--provider", "google.com", "--param", "a=1", "--param", "a=2"],
            expects: "more than once"),
        .init(arguments: ["--once", "--provider", "google.com", "--scope", "a b"], expects: "repeat '--scope'"),
        .init(arguments: ["--once", "--provider", "google.com", "--no-browser=yes"], expects: "takes no value"),
        .init(
            arguments: ["--once", "--provider", "google.com", "--id-token-file", "/t"], expects: "needs '--auth-type"),
        .init(
            arguments: ["--once", "--provider", "google.com", "--auth-type", "link"], expects: "needs '--id-token-file"),
        .init(
            arguments: ["--once", "--provider", "google.com", "--id-token-file", "/t", "--auth-type", "signin"],
            expects: "'--auth-type' expects 'link' or 'reauth'"),
        .init(
            arguments: ["--once", "--provider", "google.com", "--consumer-key", "k"],
            expects: "does not apply to google.com"),
        .init(
            arguments: ["--once", "--provider", "twitter.com", "--client-id", "k"],
            expects: "does not apply to twitter.com"),
        .init(arguments: ["check-config", "--once"], expects: "option '--once' does not apply to 'check-config'"),
        .init(arguments: ["demo", "--listen", "x"], expects: "does not apply to 'demo'"),
        .init(arguments: ["fake-idp", "--listen", "localhost"], expects: "'--listen' expects HOST:PORT"),
        .init(arguments: ["fake-idp", "--listen", "myhost:9000"], expects: "use an IP address"),
        .init(arguments: ["help", "nothing"], expects: "unknown help topic"),
    ]

    @Test(arguments: usageCases)
    func badCommandLineIsOneUsageLine(_ usage: CLIUsageCase) {
        do {
            let command = try parse(usage.arguments)
            Issue.record("accepted: \(command)")
        } catch {
            #expect(error.message.contains(usage.expects), "\(error.message)")
            #expect(!error.message.contains("\n"))
        }
    }
}
