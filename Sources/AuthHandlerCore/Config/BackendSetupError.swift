import AuthHandlerCrypto

/// Why the configured backend cannot be built; names the config key and never a secret's value.
package enum BackendSetupError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A secret reference could not be read.
    case unresolvableSecret(key: String, SecretResolutionError)
    /// The accounts backend could not be built: its database, a key, the block list, the mail (docs/ACCOUNTS.md).
    case accounts(key: String, String)

    package var description: String {
        switch self {
        case .unresolvableSecret(let key, let error):
            "\(key): \(error)"
        case .accounts(let key, let problem):
            "\(key): \(problem)"
        }
    }

    /// The secret `reference` names, read now; `key` is its JSON path, for the message.
    static func resolve(
        _ reference: SecretReference, key: String, in environment: SecretEnvironment
    ) throws(BackendSetupError) -> Secret {
        do {
            return try reference.resolve(in: environment)
        } catch {
            throw .unresolvableSecret(key: key, error)
        }
    }
}
