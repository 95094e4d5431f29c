import AuthHandlerCrypto
import AuthHandlerHTTP

/// Why the configured backend cannot be built; names the config key and never a secret's value.
package enum BackendSetupError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `backend.url` is required for this kind.
    case missingURL(kind: BackendConfig.Kind)
    /// `backend.apiKey` (identitytoolkit) or `backend.secret` (webhook) is not configured.
    case missingSecret(key: String, kind: BackendConfig.Kind)
    /// A secret reference could not be read.
    case unresolvableSecret(key: String, SecretResolutionError)

    package var description: String {
        switch self {
        case .missingURL(let kind):
            "backend.url is required for backend kind \(kind.rawValue)"
        case .missingSecret(let key, let kind):
            "\(key) is required for backend kind \(kind.rawValue); give it as \(SecretReference.forms)"
        case .unresolvableSecret(let key, let error):
            "\(key): \(error)"
        }
    }
}

/// The backend `config` names, with its secrets read once, now.
package func makeSignInBackend(
    config: BackendConfig, secrets: SecretEnvironment, fetcher: any HTTPFetching,
    timeout: Duration = BackendExchange.defaultTimeout
) throws(BackendSetupError) -> any SignInBackend {
    switch config.kind {
    case .none:
        return NoSignInBackend()
    case .identitytoolkit:
        guard let url = config.url ?? BackendConfig.defaultIdentityToolkitURL else {
            throw .missingURL(kind: config.kind)
        }
        let apiKey = try resolve(config.apiKey, key: "backend.apiKey", kind: config.kind, in: secrets)
        return IdentityToolkitBackend(
            baseURL: url, apiKey: apiKey, tenantId: config.tenantId, fetcher: fetcher, timeout: timeout)
    case .webhook:
        guard let url = config.url else { throw .missingURL(kind: config.kind) }
        let secret = try resolve(config.secret, key: "backend.secret", kind: config.kind, in: secrets)
        return WebhookBackend(url: url, secret: secret, fetcher: fetcher, timeout: timeout)
    }
}

private func resolve(
    _ reference: SecretReference?, key: String, kind: BackendConfig.Kind, in environment: SecretEnvironment
) throws(BackendSetupError) -> Secret {
    guard let reference else { throw .missingSecret(key: key, kind: kind) }
    do {
        return try reference.resolve(in: environment)
    } catch {
        throw .unresolvableSecret(key: key, error)
    }
}
