/// One thing wrong (or questionable) in a config file, located by its JSON path.
public struct ConfigProblem: Sendable, Hashable, CustomStringConvertible {
    /// Whether the problem makes the config unusable.
    public enum Severity: String, Sendable, Hashable {
        /// The config is refused.
        case error
        /// The config works, but something should change.
        case warning
    }

    /// Whether this is an error or a warning.
    public var severity: Severity
    /// Where the bad value is.
    public var path: ConfigPath
    /// What is wrong and what is expected instead; never contains a secret value.
    public var message: String

    /// Creates a problem.
    public init(_ severity: Severity, at path: ConfigPath, _ message: String) {
        self.severity = severity
        self.path = path
        self.message = message
    }

    /// The problem as `check-config` prints it: `path: message`, warnings prefixed with `warning: `.
    public var description: String {
        switch severity {
        case .error: "\(path): \(message)"
        case .warning: "warning: \(path): \(message)"
        }
    }
}
