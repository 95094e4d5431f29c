/// The implementations of the long-running commands, supplied by the main program.
///
/// The `auth-handler` executable's `main.swift` sets every runner: `runners.serve = { options, context in await ... }`.
/// A program built on the library that leaves one nil (a test, a tool) exits for that command with
/// ``AuthHandlerExitCode/usage`` and the line `auth-handler: 'serve' is not available in this program; run the
/// auth-handler executable, which has every command`.
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
