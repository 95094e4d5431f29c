import AuthHandler
import Dispatch
import Foundation

/// `auth-handler fake-idp [--listen ADDR] [--config FILE]`: the fake IdP as a process (HTTP-API.md §1.5, §4).
public enum FakeIdPCommand {
    /// Loads the config, serves on `options.listen` until SIGINT or SIGTERM, then stops; the CLI's `fakeIdP` runner.
    ///
    /// Prints `fake-idp listening on http://HOST:PORT` once the port is bound, so a script can read the
    /// port chosen for `:0`. A bad config exits 78, an address that cannot be bound 64 or 78, one stderr line each.
    public static func run(_ options: FakeIdPOptions, context: CommandContext) async -> AuthHandlerExitCode {
        var configuration = FakeIdPConfiguration()
        if let path = options.configPath {
            do {
                configuration = try FakeIdPConfiguration.load(path: path)
            } catch {
                return context.fail(.config, "\(error); fix the file or drop '--config' to use the defaults")
            }
        }
        // `localhost` is the one host name accepted; the listener binds numeric addresses only.
        let host = options.listen.host == "localhost" ? "127.0.0.1" : options.listen.host
        guard (try? HTTPListenAddress(host: host, port: options.listen.port)) != nil else {
            return context.fail(
                .usage, "'--listen' needs a numeric address, got '\(options.listen)'; e.g. '--listen 127.0.0.1:9000'")
        }

        // Installed before binding, so that no SIGINT/SIGTERM is lost in between.
        let signals = TerminationSignals()

        let idp: FakeIdP
        do {
            idp = try FakeIdP.start(host: host, port: options.listen.port, configuration: configuration)
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
