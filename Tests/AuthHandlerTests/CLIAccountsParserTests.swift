import Testing

@testable import AuthHandlerCore
@testable import auth_handler

/// `auth-handler accounts ...` on the command line (HTTP-API.md §1.8).
struct CLIAccountsParserTests {
    private static let config = ConfigLocation(path: "/c.json", source: .option)

    private func parse(_ arguments: [String]) throws(CommandLineUsageError) -> AuthHandlerCommand {
        try CommandLineParser(environment: [:]).parse(arguments)
    }

    private func action(_ arguments: [String]) throws -> AccountsAction {
        guard case .accounts(let options) = try parse(["accounts"] + arguments + ["--config", "/c.json"]) else {
            throw CommandLineUsageError("not an accounts command")
        }
        #expect(options.config == Self.config)
        return options.action
    }

    @Test func everyActionWithItsArguments() throws {
        #expect(try action(["list"]) == .list(limit: AccountsAction.defaultLimit, after: nil))
        #expect(try action(["list", "--limit", "5", "--after=abc_-1"]) == .list(limit: 5, after: "abc_-1"))
        #expect(try action(["show", "alice@example.com"]) == .show(user: "alice@example.com"))
        #expect(try action(["disable", "id1"]) == .disable(user: "id1"))
        #expect(try action(["enable", "id1"]) == .enable(user: "id1"))
        #expect(try action(["delete", "id1"]) == .delete(user: "id1", confirmed: false))
        #expect(try action(["delete", "id1", "--yes"]) == .delete(user: "id1", confirmed: true))
        #expect(try action(["revoke-sessions", "id1"]) == .revokeSessions(user: "id1"))
        #expect(try action(["set-password", "id1"]) == .setPassword(user: "id1"))
        #expect(
            try action(["set-claims", "id1", #"{"role":"admin"}"#])
                == .setClaims(user: "id1", claims: .argument(#"{"role":"admin"}"#)))
        #expect(try action(["set-claims", "id1", "-"]) == .setClaims(user: "id1", claims: .standardInput))
    }

    @Test func jsonAndConfigGoAnywhereAfterTheCommand() throws {
        let command = try parse(["accounts", "--json", "show", "--config=/c.json", "id1"])
        #expect(command == .accounts(AccountsOptions(config: Self.config, action: .show(user: "id1"), json: true)))
        let environment = ["AUTH_HANDLER_CONFIG": "/env.json"]
        #expect(
            try CommandLineParser(environment: environment).parse(["accounts", "list"])
                == .accounts(
                    AccountsOptions(
                        config: ConfigLocation(path: "/env.json", source: .environment),
                        action: .list(limit: AccountsAction.defaultLimit, after: nil))))
    }

    /// A localId is base64url, so it may begin with '-'; after '--' even '--...' is one.
    @Test func localIDsThatLookLikeOptions() throws {
        #expect(try action(["show", "-Ab3"]) == .show(user: "-Ab3"))
        #expect(
            try parse(["accounts", "show", "--config", "/c.json", "--", "--Ab3"])
                == .accounts(AccountsOptions(config: Self.config, action: .show(user: "--Ab3"))))
        // After '--' even '--config' is an argument.
        #expect(throws: CommandLineUsageError.self) { try parse(["accounts", "show", "--", "x", "--config", "/c"]) }
    }

    @Test func helpForAccounts() throws {
        #expect(try parse(["accounts", "--help"]) == .help(.accounts))
        #expect(try parse(["accounts", "show", "-h"]) == .help(.accounts))
        #expect(try parse(["help", "accounts"]) == .help(.accounts))
        #expect(HelpText.text(for: .accounts).contains("set-password USER"))
        #expect(HelpText.text(for: nil).contains("auth-handler accounts"))
    }

    static let refused: [CLIUsageCase] = [
        CLIUsageCase(arguments: ["accounts"], expects: "'accounts' needs an action: list, show"),
        CLIUsageCase(arguments: ["accounts", "shwo", "x"], expects: "did you mean 'show'?"),
        CLIUsageCase(arguments: ["accounts", "show"], expects: "'accounts show' takes USER, got 0 argument(s)"),
        CLIUsageCase(arguments: ["accounts", "list", "extra"], expects: "takes no arguments, got 1"),
        CLIUsageCase(arguments: ["accounts", "set-claims", "id1"], expects: "takes USER JSON|-"),
        CLIUsageCase(arguments: ["accounts", "list", "--limit", "0"], expects: "from 1 to 1000, got '0'"),
        CLIUsageCase(arguments: ["accounts", "list", "--limit", "1001"], expects: "from 1 to 1000"),
        CLIUsageCase(arguments: ["accounts", "list", "--after", "not/an/id"], expects: "'--after' expects a localId"),
        CLIUsageCase(arguments: ["accounts", "show", "id1", "--limit", "3"], expects: "applies to 'accounts list'"),
        CLIUsageCase(arguments: ["accounts", "disable", "id1", "--yes"], expects: "applies to 'accounts delete'"),
        CLIUsageCase(arguments: ["accounts", "list", "--provider", "x"], expects: "does not apply to 'accounts'"),
        CLIUsageCase(arguments: ["check-config", "--json"], expects: "does not apply to 'check-config'"),
    ]

    @Test(arguments: refused)
    func refusedWithAUsageLine(_ usage: CLIUsageCase) {
        #expect(throws: CommandLineUsageError.self) { try parse(usage.arguments) }
        do {
            _ = try parse(usage.arguments)
        } catch {
            #expect(error.message.contains(usage.expects), "\(error.message)")
        }
    }

    /// `set-password USER PASSWORD`: refused, and the message never repeats what may be the password.
    @Test func aPasswordArgumentIsRefusedWithoutBeingRepeated() {
        let password = "hunter2-correct-horse"
        do {
            _ = try parse(["accounts", "set-password", "alice@example.com", password])
            Issue.record("a password argument was accepted")
        } catch {
            #expect(error.message.contains("reads the password from standard input"))
            #expect(!error.message.contains(password))
        }
        for arguments in [["show", "id1", password], ["set-claims", "id1", "{}", password]] {
            do {
                _ = try parse(["accounts"] + arguments)
                Issue.record("\(arguments) was accepted")
            } catch {
                #expect(!error.message.contains(password), "\(error.message)")
            }
        }
    }
}
