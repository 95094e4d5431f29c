import AuthHandlerCore
import Foundation

/// A config document through the loader and validator, as `check-config` reads it, without touching files: secret
/// references are not resolved and relative paths point at a directory that does not exist.
enum ConfigTarget {
    private static let loader = ConfigLoader(environment: SecretEnvironment(variables: [:]), resolvesSecrets: false)

    static func run(_ input: [UInt8]) {
        let outcome = loader.load(data: Data(input), baseDirectory: "/nonexistent/auth-handler-fuzz")
        expect((outcome.config == nil) == !outcome.errors.isEmpty, "a config with errors, or none without")
    }
}
