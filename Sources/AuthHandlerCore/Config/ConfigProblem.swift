/// One thing wrong (or questionable) in a config file, located by its JSON path.
package struct ConfigProblem: Sendable, Hashable, CustomStringConvertible {
    /// Whether the problem makes the config unusable.
    package enum Severity: String, Sendable, Hashable {
        /// The config is refused.
        case error
        /// The config works, but something should change.
        case warning
    }

    /// Whether this is an error or a warning.
    package var severity: Severity
    /// Where the bad value is.
    package var path: ConfigPath
    /// What is wrong and what is expected instead; never contains a secret value.
    package var message: String

    /// Creates a problem.
    package init(_ severity: Severity, at path: ConfigPath, _ message: String) {
        self.severity = severity
        self.path = path
        self.message = message
    }

    /// The problem as `check-config` prints it: `path: message`, warnings prefixed with `warning: `.
    package var description: String {
        switch severity {
        case .error: "\(path): \(message)"
        case .warning: "warning: \(path): \(message)"
        }
    }
}
