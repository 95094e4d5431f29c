import AuthHandlerHTTP
import Foundation

/// Backend `webhook` (CONFIG.md `backend`, HTTP-API.md §2.8): the credential POSTed as JSON to `url`, signed with
/// `secret`.
package struct WebhookConfig: Sendable, Hashable {
    /// Where results are POSTed (`url`).
    package var url: URL
    /// The HMAC key (`secret`).
    package var secret: SecretReference
}

extension WebhookConfig {
    /// The keys this kind reads.
    static let keys: KeyValuePairs<String, ConfigKeyType> = ["url": .endpointURL, "secret": .secret]

    /// The settings in `values`, the section's keys as read; nil after reporting what is missing.
    init?(
        _ values: ConfigKeyValues, given fields: [String: JSONValue], at path: ConfigPath,
        by validator: inout ConfigValidator
    ) {
        if fields["url"] == nil {
            validator.fail(path.key("url"), "required with kind \"webhook\"; expected the https URL to POST results to")
        }
        if fields["secret"] == nil {
            validator.fail(
                path.key("secret"), "required with kind \"webhook\"; expected a secret reference for the HMAC key")
        }
        guard let url = values.url("url"), let secret = values.secret("secret") else { return nil }
        self.init(url: url, secret: secret)
    }

    /// The backend, with the HMAC key read once, now.
    func makeBackend(
        secrets: SecretEnvironment, fetcher: any HTTPFetching, timeout: Duration
    ) throws(BackendSetupError) -> any SignInBackend {
        WebhookBackend(
            url: url, secret: try BackendSetupError.resolve(secret, key: "backend.secret", in: secrets),
            fetcher: fetcher, timeout: timeout)
    }
}
