import AuthHandlerCore
import AuthHandlerSystem
import Dispatch
import FakeIdP
import Foundation

/// `auth-handler fake-idp [--listen ADDR] [--config FILE]`: the fake IdP as a process (HTTP-API.md §1.5, §4).
enum FakeIdPCommand {
    /// Loads the config, serves on `options.listen` until SIGINT or SIGTERM, then stops; the CLI's `fakeIdP` runner.
    ///
    /// Prints `fake-idp listening on http://HOST:PORT` once the port is bound, so a script can read the
    /// port chosen for `:0`. A bad config or an address that cannot be bound exits 78, one stderr line each.
    static func run(_ options: FakeIdPOptions, context: CommandContext) async -> AuthHandlerExitCode {
        var configuration = FakeIdPConfiguration.defaults
        if let path = options.configPath {
            do {
                configuration = try FakeIdPConfiguration.load(path: path)
            } catch {
                return context.fail(.config, "\(error); fix the file or drop '--config' to use the defaults")
            }
        }
        // Installed before binding, so that no SIGINT/SIGTERM is lost in between.
        let signals = TerminationSignals()

        let idp: FakeIdP
        do {
            idp = try FakeIdP.start(
                host: options.listen.numericHost, port: options.listen.port, configuration: configuration)
        } catch {
            return context.fail(
                .config, "cannot listen on \(options.listen): \(error); choose another '--listen' address")
        }
        context.output.line("fake-idp listening on \(idp.baseURL)")
        _ = await signals.next()
        await idp.stop()
        return .success
    }
}
