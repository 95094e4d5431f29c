import AuthHandlerCore
import AuthHandlerHTTP
import Foundation

/// The fake IdP's clients, users and rules; every key is optional in JSON and defaults as HTTP-API.md §4.2 says.
package struct FakeIdPConfiguration: Codable, Sendable {
    /// An OAuth 1.0a consumer (Twitter "API key" and "API secret").
    package struct OAuth1Consumer: Codable, Sendable, Hashable {
        package var key: String
        package var secret: String
    }

    /// An OAuth 2 client; `secret == nil` is a public client, for which PKCE is mandatory.
    package struct OAuth2Client: Codable, Sendable, Hashable {
        package var id: String
        package var secret: String?
    }

    package var oauth1Consumers = [OAuth1Consumer(key: "fake-consumer-key", secret: "fake-consumer-secret")]
    package var oauth2Clients = [
        OAuth2Client(id: "fake-client-id", secret: "fake-client-secret"),
        OAuth2Client(id: "fake-public-client", secret: nil),
    ]
    package var users = FakeUser.defaults
    /// Exact redirect URIs (OAuth 2 `redirect_uri` and OAuth 1.0a `oauth_callback`) accepted; when
    /// nil, any `http://127.0.0.1:PORT/__/auth/handler` or `http://[::1]:PORT/__/auth/handler` is.
    package var redirectURIs: [String]?
    /// Whether `login_hint` / `screen_name` naming a configured user skips the login page.
    package var autoApprove = true
    /// Lifetime of an OAuth 2 authorization code.
    package var codeLifetimeSeconds = 60
    /// Lifetime of an OAuth 1.0a request token.
    package var requestTokenLifetimeSeconds = 300
    /// Lifetime of access tokens and ID tokens.
    package var accessTokenLifetimeSeconds = 3600
    /// Allowed distance between an OAuth 1.0a `oauth_timestamp` and the fake IdP's clock.
    package var timestampWindowSeconds = 300
    /// The API key the fake Identity Toolkit backend requires (`?key=`); nil accepts any non-empty key.
    package var backendAPIKey: String?

    /// Reads a JSON file; unknown keys are refused so that a typo does not silently fall back to a default.
    package static func load(path: String) throws -> FakeIdPConfiguration {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw FakeIdPConfigurationError(
                message: "cannot read fake IdP config \(path): \(error.localizedDescription)")
        }
        if let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] {
            let known = Set(CodingKeys.allCases.map(\.rawValue))
            let unknown = object.keys.filter { !known.contains($0) }.sorted()
            if !unknown.isEmpty {
                throw FakeIdPConfigurationError(
                    message: "fake IdP config \(path): unknown key(s) \(unknown.joined(separator: ", ")); "
                        + "known keys are \(known.sorted().joined(separator: ", "))")
            }
        }
        do {
            return try JSONDecoder().decode(FakeIdPConfiguration.self, from: data)
        } catch {
            throw FakeIdPConfigurationError(message: "fake IdP config \(path) is not valid: \(error)")
        }
    }

    func user(named name: String) -> FakeUser? {
        users.first { $0.name == name }
    }

    func user(id: String) -> FakeUser? {
        users.first { $0.id == id }
    }

    func oauth1Secret(forConsumer key: String) -> String? {
        oauth1Consumers.first { $0.key == key }?.secret
    }

    func oauth2Client(id: String) -> OAuth2Client? {
        oauth2Clients.first { $0.id == id }
    }

    /// Whether `uri` may receive the browser: exactly listed, or by default a loopback handler URL.
    func acceptsRedirectURI(_ uri: String) -> Bool {
        if let redirectURIs { return redirectURIs.contains(uri) }
        guard let components = URLComponents(string: uri), components.scheme == "http",
            components.path == "/__/auth/handler", components.port != nil,
            components.query == nil, components.fragment == nil, components.user == nil, components.password == nil
        else { return false }
        return components.host == "127.0.0.1" || components.host == "[::1]" || components.host == "::1"
    }
}

/// A fake IdP configuration file that cannot be used, with what to fix.
package struct FakeIdPConfigurationError: Error, CustomStringConvertible {
    package let message: String
    package var description: String { message }
}

/// The defaults, and decoding in which every key is optional; declared apart so that the memberwise initialiser stays.
extension FakeIdPConfiguration {
    /// Every key at its default (HTTP-API.md §4.2).
    package static let defaults = FakeIdPConfiguration()

    enum CodingKeys: String, CodingKey, CaseIterable {
        case oauth1Consumers, oauth2Clients, users, redirectURIs, autoApprove, codeLifetimeSeconds
        case requestTokenLifetimeSeconds, accessTokenLifetimeSeconds, timestampWindowSeconds, backendAPIKey
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        oauth1Consumers =
            try container.decodeIfPresent([OAuth1Consumer].self, forKey: .oauth1Consumers) ?? oauth1Consumers
        oauth2Clients = try container.decodeIfPresent([OAuth2Client].self, forKey: .oauth2Clients) ?? oauth2Clients
        users = try container.decodeIfPresent([FakeUser].self, forKey: .users) ?? users
        redirectURIs = try container.decodeIfPresent([String].self, forKey: .redirectURIs)
        autoApprove = try container.decodeIfPresent(Bool.self, forKey: .autoApprove) ?? autoApprove
        codeLifetimeSeconds =
            try container.decodeIfPresent(Int.self, forKey: .codeLifetimeSeconds) ?? codeLifetimeSeconds
        requestTokenLifetimeSeconds =
            try container.decodeIfPresent(Int.self, forKey: .requestTokenLifetimeSeconds) ?? requestTokenLifetimeSeconds
        accessTokenLifetimeSeconds =
            try container.decodeIfPresent(Int.self, forKey: .accessTokenLifetimeSeconds) ?? accessTokenLifetimeSeconds
        timestampWindowSeconds =
            try container.decodeIfPresent(Int.self, forKey: .timestampWindowSeconds) ?? timestampWindowSeconds
        backendAPIKey = try container.decodeIfPresent(String.self, forKey: .backendAPIKey)
    }
}
