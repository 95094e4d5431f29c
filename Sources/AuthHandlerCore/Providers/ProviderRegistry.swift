import AuthHandlerCrypto
import AuthHandlerProtocols
import AuthHandlerSystem
import Foundation

/// The configured providers in runtime form, built once at startup: secrets are resolved here (so a
/// missing file or variable stops the start, naming the provider), never during a sign-in.
package struct ProviderRegistry: Sendable {
    /// The descriptors by provider id.
    package let descriptors: [String: ProviderDescriptor]

    /// Wraps descriptors built elsewhere (tests, tools).
    package init(descriptors: [ProviderDescriptor]) {
        self.descriptors = Dictionary(descriptors.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
    }

    /// Builds every provider of `config`; `now` is the clock Apple's client secrets are dated by.
    ///
    /// Throws one error listing every problem: unreadable secrets, missing client ids or endpoints, an
    /// Apple key that is not a P-256 PEM, an OIDC provider with neither endpoints nor an issuer to discover.
    package init(
        config: AuthHandlerConfig, environment: SecretEnvironment,
        now: @escaping WallClock = systemWallClock
    ) throws(ProviderRegistryError) {
        var built: [ProviderDescriptor] = []
        var problems: [ProviderRegistryError.Problem] = []
        for id in config.providers.keys.sorted() {
            guard let provider = config.providers[id] else { continue }
            var builder = DescriptorBuilder(id: id, config: provider, environment: environment, now: now)
            if let descriptor = builder.build() { built.append(descriptor) }
            problems += builder.problems
        }
        guard problems.isEmpty else { throw ProviderRegistryError(problems: problems) }
        self.init(descriptors: built)
    }

    /// The provider `id`, or nil when it is not configured.
    package subscript(id: String) -> ProviderDescriptor? { descriptors[id] }

    /// The configured provider ids, sorted.
    package var ids: [String] { descriptors.keys.sorted() }
}

/// Applies a built-in provider's defaults to one configured provider and resolves its secrets.
private struct DescriptorBuilder {
    let id: String
    let config: ProviderConfig
    let environment: SecretEnvironment
    let now: WallClock
    /// The catalogue entry whose defaults apply: nil for a custom id, or a built-in id set to another protocol.
    let builtIn: BuiltInProvider?
    /// Whether the catalogue lets this id sign an ES256 client secret (whatever protocol is configured).
    let signsES256ClientSecret: Bool
    var problems: [ProviderRegistryError.Problem] = []

    init(id: String, config: ProviderConfig, environment: SecretEnvironment, now: @escaping WallClock) {
        self.id = id
        self.config = config
        self.environment = environment
        self.now = now
        let entry = BuiltInProvider.named(id)
        builtIn = entry.flatMap { $0.protocolKind == config.protocolKind ? $0 : nil }
        signsES256ClientSecret = entry?.signsES256ClientSecret == true
    }

    /// Whether the provider's `email` needs no verified flag: the catalogue says so, or a custom provider's
    /// `trustEmail` (which validation refuses on a built-in id).
    private var trustsEmail: Bool { builtIn?.returnsOnlyVerifiedEmail ?? config.trustEmail ?? false }

    mutating func build() -> ProviderDescriptor? {
        switch config.protocolKind {
        case .oauth1: oauth1()
        case .oauth2, .oidc: oauth2()
        }
    }

    private mutating func oauth1() -> ProviderDescriptor? {
        let endpoints = Self.overlay(config.endpoints, on: builtIn?.endpoints)
        requireEndpoints(["requestToken", "authorize", "accessToken"], in: endpoints)
        let key = nonEmpty(config.consumerKey, key: "consumerKey", expected: "the consumer (API) key")
        let secret = resolve(config.consumerSecret, key: "consumerSecret")
        let method = OAuth1SignatureMethod(name: (config.signatureMethod ?? .hmacSHA1).rawValue)
        guard let key, let secret, let method else { return nil }
        return ProviderDescriptor(
            id: id, protocolKind: .oauth1, isBuiltIn: builtIn != nil, endpoints: endpoints,
            defaultScopes: config.scopes ?? builtIn?.scopes ?? [], clientID: key, clientSecret: .fixed(secret),
            signatureMethod: method, profileMapping: builtIn?.profileMapping ?? .twitter,
            displayName: config.displayName, trustsEmail: trustsEmail)
    }

    private mutating func oauth2() -> ProviderDescriptor? {
        let isOIDC = config.protocolKind == .oidc
        // A configured issuer other than the built-in one (a fake IdP, one Microsoft tenant) replaces the
        // default endpoints too: they belong to the default issuer. Discovery fills what is not written.
        var issuer = builtIn?.issuer
        var discoveryIssuer = builtIn?.discoveryIssuer
        var defaults = builtIn?.endpoints
        if let configured = config.issuer, configured != builtIn?.discoveryIssuer {
            issuer = .exact(configured.absoluteString)
            discoveryIssuer = configured
            defaults = nil
        }
        let endpoints = Self.overlay(config.endpoints, on: defaults)
        if isOIDC {
            if discoveryIssuer == nil {
                requireEndpoints(["authorization", "token", "jwks"], in: endpoints)
            }
        } else {
            requireEndpoints(["authorization", "token"], in: endpoints)
        }

        let clientID = nonEmpty(config.clientId, key: "clientId", expected: "the OAuth client id")
        // An explicit setting wins; otherwise the provider's documented method.
        let auth =
            config.tokenEndpointAuth
            ?? (builtIn?.requiresClientSecretPost == true ? .clientSecretPost : .clientSecretBasic)
        let secret = auth == .none ? nil : clientSecret(clientID: clientID)
        guard let clientID, auth == .none || secret != nil else { return nil }
        return ProviderDescriptor(
            id: id, protocolKind: config.protocolKind, isBuiltIn: builtIn != nil, endpoints: endpoints,
            defaultScopes: config.scopes ?? builtIn?.scopes ?? (isOIDC ? ["openid", "email", "profile"] : []),
            clientID: clientID, clientSecret: secret, tokenEndpointAuth: auth,
            responseMode: config.responseMode ?? builtIn?.responseMode ?? .query,
            issuer: issuer, discoveryIssuer: isOIDC ? discoveryIssuer : nil,
            idTokenAlgorithms: isOIDC ? (builtIn?.idTokenAlgorithms ?? [.rs256, .es256]) : [],
            profileMapping: builtIn?.profileMapping ?? (isOIDC ? .oidc : .oauth2UserInfo),
            displayName: config.displayName, trustsEmail: trustsEmail)
    }

    /// The configured client secret, or where the catalogue allows it (Apple) one generated from teamId,
    /// keyId and privateKey.
    private mutating func clientSecret(clientID: String?) -> ClientSecretSource? {
        if config.clientSecret != nil {
            return resolve(config.clientSecret, key: "clientSecret").map(ClientSecretSource.fixed)
        }
        guard signsES256ClientSecret, let teamID = config.teamId, let keyID = config.keyId, config.privateKey != nil
        else {
            problem(
                "clientSecret",
                signsES256ClientSecret
                    ? "required, or teamId, keyId and privateKey to generate it; expected a secret reference"
                    : "required unless tokenEndpointAuth is \"none\"; expected a secret reference")
            return nil
        }
        guard let pem = resolve(config.privateKey, key: "privateKey"), let clientID else { return nil }
        do {
            return .appleGenerated(
                try AppleClientSecret(teamID: teamID, keyID: keyID, clientID: clientID, privateKeyPEM: pem, now: now))
        } catch {
            problem("privateKey", "not a usable Sign in with Apple key (\(error)); expected the .p8 file's PEM")
            return nil
        }
    }

    private mutating func resolve(_ reference: SecretReference?, key: String) -> Secret? {
        guard let reference else {
            problem(key, "required; expected a secret reference")
            return nil
        }
        do {
            return try reference.resolve(in: environment)
        } catch {
            problem(key, error.description)
            return nil
        }
    }

    private mutating func nonEmpty(_ value: String?, key: String, expected: String) -> String? {
        guard let value, !value.isEmpty else {
            problem(key, "required; expected \(expected)")
            return nil
        }
        return value
    }

    private mutating func requireEndpoints(_ keys: [String], in endpoints: ProviderEndpoints) {
        for key in keys where endpoints.url(forKey: key) == nil {
            problem("endpoints.\(key)", "required for this provider; expected an https URL")
        }
    }

    private mutating func problem(_ key: String, _ message: String) {
        problems.append(ProviderRegistryError.Problem(providerID: id, key: key, message: message))
    }

    /// `overrides` wherever set, else `defaults`.
    private static func overlay(_ overrides: ProviderEndpoints, on defaults: ProviderEndpoints?) -> ProviderEndpoints {
        guard let defaults else { return overrides }
        return ProviderEndpoints(
            requestToken: overrides.requestToken ?? defaults.requestToken,
            authorize: overrides.authorize ?? defaults.authorize,
            accessToken: overrides.accessToken ?? defaults.accessToken, profile: overrides.profile ?? defaults.profile,
            authorization: overrides.authorization ?? defaults.authorization, token: overrides.token ?? defaults.token,
            userInfo: overrides.userInfo ?? defaults.userInfo, jwks: overrides.jwks ?? defaults.jwks)
    }
}
