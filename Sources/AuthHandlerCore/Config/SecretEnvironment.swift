import Foundation

/// What secret references are resolved against: environment variables and the file system.
package struct SecretEnvironment: Sendable {
    /// Environment variables, for `{"env": NAME}` and `$CREDENTIALS_DIRECTORY`.
    package var variables: [String: String]

    /// Creates an environment with the given variables.
    package init(variables: [String: String]) {
        self.variables = variables
    }

    /// The environment of the running process.
    package static var process: SecretEnvironment {
        SecretEnvironment(variables: ProcessInfo.processInfo.environment)
    }

    /// systemd's `$CREDENTIALS_DIRECTORY` (set by `LoadCredential=`), if set and non-empty.
    package var credentialsDirectory: String? {
        guard let directory = variables["CREDENTIALS_DIRECTORY"], !directory.isEmpty else { return nil }
        return directory
    }
}
