/// Which config file to use, and why: `--config`, else `$AUTH_HANDLER_CONFIG`, else the default path.
package struct ConfigLocation: Sendable, Hashable, CustomStringConvertible {
    /// Where the path came from.
    package enum Source: Sendable, Hashable {
        /// The `--config` option.
        case option
        /// The `AUTH_HANDLER_CONFIG` environment variable.
        case environment
        /// Neither was given: ``ConfigLocation/defaultPath``.
        case defaultPath
    }

    /// The config path used when neither `--config` nor `AUTH_HANDLER_CONFIG` is given.
    package static let defaultPath = "/etc/auth-handler/config.json"
    /// The environment variable naming the config file.
    package static let environmentVariable = "AUTH_HANDLER_CONFIG"

    /// The file path.
    package var path: String
    /// Where it came from.
    package var source: Source

    /// Creates a location.
    package init(path: String, source: Source) {
        self.path = path
        self.source = source
    }

    /// Applies the precedence: `option`, else a non-empty `$AUTH_HANDLER_CONFIG`, else the default path.
    package static func resolve(option: String?, environment: [String: String]) -> ConfigLocation {
        if let option { return ConfigLocation(path: option, source: .option) }
        if let path = environment[environmentVariable], !path.isEmpty {
            return ConfigLocation(path: path, source: .environment)
        }
        return ConfigLocation(path: defaultPath, source: .defaultPath)
    }

    package var description: String { path }
}
