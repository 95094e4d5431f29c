import AuthHandlerHTTP
import Foundation

/// The sign-in backend a redeemed credential is handed to: `backend` in the config (CONFIG.md `backend`,
/// HTTP-API.md §2.8), one case per `kind`, each with the settings that kind reads.
package enum BackendConfig: Sendable, Hashable {
    /// No backend: the result carries the IdP credential and profile only.
    case none
    /// Identity Toolkit `accounts:signInWithIdp` (Firebase Auth, Identity Platform, the Auth emulator).
    case identityToolkit(IdentityToolkitConfig)
    /// A signed JSON POST to a URL of the operator's.
    case webhook(WebhookConfig)
    /// The daemon's own users (docs/ACCOUNTS.md).
    case accounts(AccountsConfig)

    /// The `kind` member: what the config writes for each case.
    package enum Kind: String, Sendable, Hashable, CaseIterable {
        case none
        case identitytoolkit
        case webhook
        case accounts

        /// The keys this kind reads, each with how its value is checked; the others are ignored with a warning.
        var keys: KeyValuePairs<String, ConfigKeyType> {
            switch self {
            case .none: [:]
            case .identitytoolkit: IdentityToolkitConfig.keys
            case .webhook: WebhookConfig.keys
            case .accounts: AccountsConfig.keys
            }
        }
    }

    /// The section's keys as CONFIG.md `backend` lists them: `kind` and every key some kind reads.
    static let keys = ["kind", "url", "apiKey", "secret", "tenantId"] + ConfigValidator.accountsKeys

    /// Which kind this is.
    package var kind: Kind {
        switch self {
        case .none: .none
        case .identityToolkit: .identitytoolkit
        case .webhook: .webhook
        case .accounts: .accounts
        }
    }

    /// The backend this config names, with its secrets read once, now.
    package func makeBackend(
        secrets: SecretEnvironment, fetcher: any HTTPFetching, timeout: Duration = BackendExchange.defaultTimeout,
        accounts setup: AccountsSetup? = nil
    ) throws(BackendSetupError) -> any SignInBackend {
        switch self {
        case .accounts(let config):
            guard let setup else {
                throw .accounts(key: "backend", "kind \"accounts\" needs publicURL and a state key to start")
            }
            return try config.makeBackend(setup)
        case .none: return NoSignInBackend()
        case .identityToolkit(let config):
            return try config.makeBackend(secrets: secrets, fetcher: fetcher, timeout: timeout)
        case .webhook(let config): return try config.makeBackend(secrets: secrets, fetcher: fetcher, timeout: timeout)
        }
    }

    /// Validates `backend`: every key's value is checked whatever the kind (a kind that ignores a key still refuses a
    /// bad value), then the kind's payload takes its keys and reports the required ones missing, and the keys it
    /// does not read are warned about. A backend with errors is `none`: the report refuses the config anyway.
    static func validating(_ value: JSONValue, at path: ConfigPath, by validator: inout ConfigValidator)
        -> BackendConfig
    {
        guard let fields = validator.object(value, at: path, allowedKeys: keys) else { return .none }
        let kind: Kind = validator.kind(fields, at: path) ?? .none
        let values = validator.read(
            fields, keys: Kind.allCases.flatMap(\.keys), inOrderOf: keys, at: path)
        let backend: BackendConfig? =
            switch kind {
            case .none: BackendConfig.none
            case .identitytoolkit:
                IdentityToolkitConfig(values, given: fields, at: path, by: &validator).map(Self.identityToolkit)
            case .webhook: WebhookConfig(values, given: fields, at: path, by: &validator).map(Self.webhook)
            case .accounts: .accounts(validator.accounts(fields, at: path))
            }
        validator.warnIgnored(in: fields, sectionKeys: keys, read: kind.keys.map(\.key), kind: kind, at: path)
        return backend ?? .none
    }
}
