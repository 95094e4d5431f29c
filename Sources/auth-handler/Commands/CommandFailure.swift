import AuthHandlerCore
import AuthHandlerSystem
import FakeIdP
import Foundation

/// Why `--once`, `login`, `token` or `logout` ends without a result: its exit code (HTTP-API.md §1.2) and its one line for stderr.
struct CommandFailure: Error {
    let exitCode: AuthHandlerExitCode
    let message: String

    init(_ exitCode: AuthHandlerExitCode, _ message: String) {
        self.exitCode = exitCode
        self.message = message
    }

    /// The usage check both commands make of `--scope`: one scope each (exit 64).
    static func checkScopes(_ scopes: [String]) throws(CommandFailure) {
        for scope in scopes where scope.contains(",") {
            throw CommandFailure(.usage, "'--scope' takes one scope, got '\(scope)'; repeat '--scope' for each")
        }
    }

    /// The usage check both commands make of `--output`: a path the result file may be written to (exit 64).
    static func checkOutput(_ path: String?) throws(CommandFailure) {
        if let path, let problem = ResultFile.problem(at: path) { throw CommandFailure(.usage, problem) }
    }

    /// The usage check of `--server` that `login`, `token` and `logout` share (exit 64): an http or https URL with a
    /// host and no query, returned without a trailing `/`.
    static func checkServer(_ text: String) throws(CommandFailure) -> String {
        var server = text
        while server.hasSuffix("/") { server.removeLast() }
        guard let url = URL(string: server), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
            url.host != nil, url.query == nil, url.fragment == nil, url.user == nil
        else {
            throw CommandFailure(
                .usage, "'--server' expects the server's URL, such as https://auth.example.com; got '\(text)'")
        }
        return server
    }
}
