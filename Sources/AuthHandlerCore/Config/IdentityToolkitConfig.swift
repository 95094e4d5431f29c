import AuthHandlerHTTP
import Foundation

/// Backend `identitytoolkit` (CONFIG.md `backend`, HTTP-API.md §2.8): `accounts:signInWithIdp` of Firebase Auth,
/// Identity Platform or the Auth emulator.
package struct IdentityToolkitConfig: Sendable, Hashable {
    /// The Identity Toolkit base URL used when `url` is not given.
    package static let defaultURL = URL(string: "https://identitytoolkit.googleapis.com/v1")

    /// The API root (`url`).
    package var url: URL
    /// The API key (`apiKey`).
    package var apiKey: SecretReference
    /// The Identity Platform tenant (`tenantId`).
    package var tenantId: String?
}

extension IdentityToolkitConfig {
    /// The keys this kind reads.
    static let keys: KeyValuePairs<String, ConfigKeyType> = ["url": .endpointURL, "apiKey": .secret, "tenantId": .text]

    /// The settings in `values`, the section's keys as read; nil after reporting what is missing.
    init?(
        _ values: ConfigKeyValues, given fields: [String: JSONValue], at path: ConfigPath,
        by validator: inout ConfigValidator
    ) {
        if fields["apiKey"] == nil {
            validator.fail(path.key("apiKey"), "required with kind \"identitytoolkit\"; expected a secret reference")
        }
        // A given url that is not one was reported as it was read; the default always parses.
        guard let url = fields["url"] == nil ? Self.defaultURL : values.url("url"), let apiKey = values.secret("apiKey")
        else { return nil }
        self.init(url: url, apiKey: apiKey, tenantId: values.text("tenantId"))
    }

    /// The backend, with the API key read once, now.
    func makeBackend(
        secrets: SecretEnvironment, fetcher: any HTTPFetching, timeout: Duration
    ) throws(BackendSetupError) -> any SignInBackend {
        IdentityToolkitBackend(
            baseURL: url, apiKey: try BackendSetupError.resolve(apiKey, key: "backend.apiKey", in: secrets),
            tenantId: tenantId, fetcher: fetcher, timeout: timeout)
    }
}
