import Testing

@testable import auth_handler

/// `token` and `logout`'s command lines and the session file's default name (HTTP-API.md §1.9); the commands
/// themselves run against the real daemon in `EndToEndLoginAccountsTests`.
struct CLISessionCommandTests {
    private func parse(_ arguments: [String]) throws(CommandLineUsageError) -> AuthHandlerCommand {
        try CommandLineParser(environment: [:]).parse(arguments)
    }

    @Test func tokenAndLogoutOptions() throws {
        guard case .token(let token) = try parse(["token", "--server", "https://a.example", "--force-refresh"]) else {
            Issue.record("token was not parsed as token")
            return
        }
        #expect(token.server == "https://a.example" && token.forceRefresh && token.sessionPath == nil)
        guard case .logout(let logout) = try parse(["logout", "--server=https://a.example", "--scope", "global"])
        else {
            Issue.record("logout was not parsed as logout")
            return
        }
        #expect(logout.scope.rawValue == "global" && !logout.forceRefresh)
        guard case .logout(let local) = try parse(["logout", "--server", "https://a.example", "--session-file", "s"])
        else {
            Issue.record("logout was not parsed as logout")
            return
        }
        #expect(local.scope.rawValue == "local" && local.sessionPath == "s")
        guard case .login(let login) = try parse(["login", "--server", "u", "--provider", "p", "--session-file", "f"])
        else {
            Issue.record("login was not parsed as login")
            return
        }
        #expect(login.sessionPath == "f")
    }

    @Test(arguments: [
        CLIUsageCase(arguments: ["token"], expects: "'token' needs '--server URL'"),
        CLIUsageCase(
            arguments: ["logout", "--server", "https://a", "--scope", "all"],
            expects: "'logout --scope' takes one of local, others, global; got 'all'"),
        CLIUsageCase(
            arguments: ["logout", "--server", "https://a", "--scope", "local", "--scope", "global"],
            expects: "got 'local global'"),
        CLIUsageCase(
            arguments: ["token", "--server", "https://a", "--scope", "local"], expects: "does not apply to 'token'"),
        CLIUsageCase(arguments: ["logout", "--server", "https://a", "--force-refresh"], expects: "does not apply"),
    ])
    func refusals(_ usage: CLIUsageCase) {
        #expect {
            try parse(usage.arguments)
        } throws: { error in
            (error as? CommandLineUsageError)?.message.contains(usage.expects) == true
        }
    }

    @Test func defaultSessionFileIsOnePerServer() throws {
        let state = ["XDG_STATE_HOME": "/state", "HOME": "/home/a"]
        #expect(
            try SessionFile.defaultPath(server: "https://Auth.Example.com", environment: state)
                == "/state/auth-handler/sessions/https_auth.example.com_443.json")
        #expect(
            try SessionFile.defaultPath(server: "http://127.0.0.1:8080/base/x_y", environment: ["HOME": "/home/a"])
                == "/home/a/.local/state/auth-handler/sessions/http_127.0.0.1_8080_%2Fbase%2Fx%5Fy.json")
        // A relative XDG_STATE_HOME is ignored, as the XDG Base Directory Specification says.
        #expect(
            try SessionFile.defaultPath(server: "https://a", environment: ["XDG_STATE_HOME": "rel", "HOME": "/h"])
                == "/h/.local/state/auth-handler/sessions/https_a_443.json")
        #expect(throws: CommandFailure.self) {
            try SessionFile.defaultPath(server: "https://a", environment: [:])
        }
    }
}
