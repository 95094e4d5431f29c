import AuthHandlerHTTP
import Foundation

/// Reads and validates a config file, reporting every problem with its JSON path.
package struct ConfigLoader: Sendable {
    /// Where `{"env": ...}` and `{"credential": ...}` secrets are looked up.
    package var environment: SecretEnvironment
    /// Whether secret references are read to prove they resolve (their values are discarded).
    package var resolvesSecrets: Bool

    /// Creates a loader.
    package init(environment: SecretEnvironment = .process, resolvesSecrets: Bool = true) {
        self.environment = environment
        self.resolvesSecrets = resolvesSecrets
    }

    /// Reads and validates the file at `path`; relative paths inside it are resolved against its directory.
    package func load(fileAt path: String) throws(ConfigFileError) -> ConfigReport {
        let absolute = Self.absolute(path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: absolute, isDirectory: &isDirectory) else {
            throw ConfigFileError(path: path, reason: .missing)
        }
        if isDirectory.boolValue { throw ConfigFileError(path: path, reason: .isDirectory) }
        guard FileManager.default.isReadableFile(atPath: absolute),
            let data = FileManager.default.contents(atPath: absolute)
        else {
            throw ConfigFileError(path: path, reason: .unreadable)
        }
        let directory = (absolute as NSString).deletingLastPathComponent
        return load(data: data, baseDirectory: directory)
    }

    /// Validates a config document; relative paths inside it are resolved against `baseDirectory`.
    package func load(data: Data, baseDirectory: String) -> ConfigReport {
        let root: JSONValue
        switch JSONSyntax.parseConfiguration(Array(data)) {
        case .success(let value): root = value
        case .failure(let failure):
            return ConfigReport(config: nil, problems: [ConfigProblem(.error, at: .root, failure.description)])
        }
        var validator = validator(baseDirectory: baseDirectory)
        let config = validator.validate(root)
        let problems = validator.problems
        let hasErrors = problems.contains { $0.severity == .error }
        return ConfigReport(config: hasErrors ? nil : config, problems: problems)
    }

    /// A validator with this loader's settings, resolving relative paths against `baseDirectory`.
    package func validator(baseDirectory: String) -> ConfigValidator {
        ConfigValidator(
            environment: environment, baseDirectory: Self.absolute(baseDirectory), resolvesSecrets: resolvesSecrets)
    }

    private static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return (path as NSString).standardizingPath }
        let joined = (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(path)
        return (joined as NSString).standardizingPath
    }
}

/// The outcome of validating a config: the config when it is usable, and every problem found.
package struct ConfigReport: Sendable {
    /// The validated config with defaults filled in; nil when there is any error.
    package var config: AuthHandlerConfig?
    /// Every error and warning, in document order.
    package var problems: [ConfigProblem]

    /// Creates a report.
    package init(config: AuthHandlerConfig?, problems: [ConfigProblem]) {
        self.config = config
        self.problems = problems
    }

    /// The problems that make the config unusable.
    package var errors: [ConfigProblem] { problems.filter { $0.severity == .error } }
    /// The problems that do not.
    package var warnings: [ConfigProblem] { problems.filter { $0.severity == .warning } }
}

/// A config file that could not be read at all.
package struct ConfigFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Why the file could not be read.
    package enum Reason: Sendable, Hashable {
        case missing
        case isDirectory
        case unreadable
    }

    /// The path as given.
    package var path: String
    /// Why it could not be read.
    package var reason: Reason

    /// Creates the error.
    package init(path: String, reason: Reason) {
        self.path = path
        self.reason = reason
    }

    package var description: String {
        switch reason {
        case .missing:
            "config file '\(path)' does not exist; pass --config FILE or set AUTH_HANDLER_CONFIG"
        case .isDirectory:
            "config file '\(path)' is a directory; pass --config FILE naming a JSON file"
        case .unreadable:
            "config file '\(path)' is not readable by this user; fix its owner or mode"
        }
    }
}
