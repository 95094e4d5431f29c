import AuthHandlerCore
import AuthHandlerHTTP

/// A parsed `auth-handler` command line: which command to run, with its validated options.
enum AuthHandlerCommand: Sendable, Hashable {
    /// `serve [--config FILE]`, the default command.
    case serve(ServeOptions)
    /// `--once --provider ID ...` (also `serve --once`): one desktop sign-in on loopback.
    case once(OnceOptions)
    /// `fake-idp [--listen ADDR] [--config FILE]`.
    case fakeIdP(FakeIdPOptions)
    /// `demo [--headless]`.
    case demo(DemoOptions)
    /// `check-config [--config FILE]`.
    case checkConfig(CheckConfigOptions)
    /// `login --server URL --provider ID [--scope S]... [--output FILE]`: a device sign-in.
    case login(LoginOptions)
    /// `accounts ACTION [USER] [--json] [--config FILE]`: the accounts backend's users, for the operator.
    case accounts(AccountsOptions)
    /// `token --server URL [--session-file FILE] [--force-refresh]`: a fresh ID token of the kept session.
    case token(SessionCommandOptions)
    /// `logout --server URL [--session-file FILE] [--scope local|others|global]`: ends the kept session.
    case logout(SessionCommandOptions)
    /// `--help`, optionally about one command.
    case help(Name?)
    /// `--version`.
    case version

    /// The command words, as typed.
    enum Name: String, Sendable, Hashable, CaseIterable {
        case serve
        case fakeIdP = "fake-idp"
        case demo
        case checkConfig = "check-config"
        case login
        case token
        case logout
        case accounts
    }
}

/// Options of `serve`.
struct ServeOptions: Sendable, Hashable {
    /// The config file to serve with.
    var config: ConfigLocation

    /// Creates the options.
    init(config: ConfigLocation) {
        self.config = config
    }
}

/// Options of `check-config`.
struct CheckConfigOptions: Sendable, Hashable {
    /// The config file to check.
    var config: ConfigLocation

    /// Creates the options.
    init(config: ConfigLocation) {
        self.config = config
    }
}

/// Options of `fake-idp`.
struct FakeIdPOptions: Sendable, Hashable {
    /// The address to bind; `127.0.0.1:0` (an ephemeral port) by default.
    var listen: ListenAddress
    /// A fake-IdP config file replacing the built-in defaults, if given.
    var configPath: String?

    /// The default listen address.
    static let defaultListen = ListenAddress(host: "127.0.0.1", port: 0)

    /// Creates the options.
    init(listen: ListenAddress = FakeIdPOptions.defaultListen, configPath: String? = nil) {
        self.listen = listen
        self.configPath = configPath
    }
}

/// Options of `demo`.
struct DemoOptions: Sendable, Hashable {
    /// Approve automatically instead of opening a browser.
    var headless: Bool

    /// Creates the options.
    init(headless: Bool = false) {
        self.headless = headless
    }
}
