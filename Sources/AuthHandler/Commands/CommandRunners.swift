/// The implementations of the long-running commands, supplied by the main program.
///
/// A command whose runner is nil exits with ``AuthHandlerExitCode/usage`` and the line
/// `auth-handler: 'serve' is not available in this build yet`. To plug one in, set its runner in `main.swift`:
/// `runners.serve = { options, context in await ... }`.
public struct CommandRunners: Sendable {
    /// Runs a command with its parsed options; returns the exit code, after writing its one stderr line on failure.
    public typealias Runner<Options> = @Sendable (Options, CommandContext) async -> AuthHandlerExitCode

    /// `serve`.
    public var serve: Runner<ServeOptions>?
    /// `--once`.
    public var once: Runner<OnceOptions>?
    /// `fake-idp`.
    public var fakeIdP: Runner<FakeIdPOptions>?
    /// `demo`.
    public var demo: Runner<DemoOptions>?

    /// Creates runners; any left nil is reported as not available.
    public init(
        serve: Runner<ServeOptions>? = nil, once: Runner<OnceOptions>? = nil,
        fakeIdP: Runner<FakeIdPOptions>? = nil, demo: Runner<DemoOptions>? = nil
    ) {
        self.serve = serve
        self.once = once
        self.fakeIdP = fakeIdP
        self.demo = demo
    }
}
