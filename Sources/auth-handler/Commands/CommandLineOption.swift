import AuthHandlerCore

/// Every option `auth-handler` knows, spelled without the leading `--`.
enum CommandLineOption: String, Sendable, Hashable, CaseIterable {
    case help
    case version
    case config
    case once
    case provider
    case port
    case scope
    case param
    case noBrowser = "no-browser"
    case timeout
    case output
    case idTokenFile = "id-token-file"
    case authType = "auth-type"
    case clientId = "client-id"
    case clientSecretFile = "client-secret-file"
    case consumerKey = "consumer-key"
    case consumerSecretFile = "consumer-secret-file"
    case listen
    case headless
    case server
    case json
    case limit
    case after
    case yes
    case sessionFile = "session-file"
    case forceRefresh = "force-refresh"
    case format
    case hashKey = "hash-key"
    case saltSeparator = "salt-separator"
    case rounds
    case memCost = "mem-cost"

    /// The options that only mean something with `--once`.
    static let onceOnly: Set<CommandLineOption> = [
        .provider, .port, .scope, .param, .noBrowser, .timeout, .output, .idTokenFile, .authType, .clientId,
        .clientSecretFile, .consumerKey, .consumerSecretFile,
    ]

    /// Recognises `--name`, and `-h` for `--help`.
    init?(spelling: String) {
        if spelling == "-h" {
            self = .help
            return
        }
        guard spelling.hasPrefix("--") else { return nil }
        self.init(rawValue: String(spelling.dropFirst(2)))
    }

    /// Whether the option is followed by a value.
    var takesValue: Bool {
        switch self {
        case .help, .version, .once, .noBrowser, .headless, .json, .yes, .forceRefresh: false
        default: true
        }
    }

    /// Whether the option may be given several times.
    var isRepeatable: Bool { self == .scope || self == .param }

    /// The placeholder for the option's value in messages and help.
    var valueName: String {
        switch self {
        case .config, .output, .idTokenFile, .clientSecretFile, .consumerSecretFile, .sessionFile: "FILE"
        case .provider: "ID"
        case .port: "N"
        case .scope: "S"
        case .param: "K=V"
        case .timeout: "SECONDS"
        case .authType: "link|reauth"
        case .clientId: "ID"
        case .consumerKey: "KEY"
        case .listen: "ADDR"
        case .server: "URL"
        case .limit: "N"
        case .after: "LOCALID"
        case .format: "firebase|bcrypt-csv"
        case .hashKey, .saltSeparator: "B64"
        case .rounds, .memCost: "N"
        default: "VALUE"
        }
    }
}
