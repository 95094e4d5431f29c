import AuthHandlerProtocols
import Foundation

/// A provider's OAuth 2 / OIDC endpoints after configuration overrides and, for OIDC, discovery.
struct ResolvedEndpoints: Sendable {
    var authorization: URL?
    var token: URL?
    var userInfo: URL?
    var jwks: URL?
    /// The issuer `iss` must match, when the provider has one.
    var issuer: ExpectedIssuer?
    /// Whether the IdP promised the RFC 9207 `iss` authorization-response parameter.
    var sendsIssParameter: Bool
}

/// A provider's endpoints, completed by OIDC discovery where the configuration leaves them out; shared by the OAuth 2
/// and OIDC drivers (docs/ARCHITECTURE.md, `Flow`).
struct EndpointResolver: Sendable {
    let discovery: OIDCDiscovery

    /// The endpoints of `provider`: configured ones win; an OIDC provider missing any is completed by discovery.
    func resolved(_ provider: ProviderDescriptor) async throws(APIError) -> ResolvedEndpoints {
        guard let target = Self.discoveryTarget(provider) else { return Self.endpoints(provider, discovered: nil) }
        let metadata: OIDCProviderMetadata
        do {
            metadata = try await discovery.metadata(for: target.issuer, documentIssuer: target.documentIssuer)
        } catch {
            throw APIError(.providerError, "OpenID discovery for \(provider.id) failed: \(error)")
        }
        return Self.endpoints(provider, discovered: metadata)
    }

    /// ``resolved(_:)`` when it needs no waiting: the provider needs no discovery, or its document is cached.
    /// Nil when discovery would have to fetch, wait for a fetch in flight, or answer a remembered failure.
    func resolvedAtOnce(_ provider: ProviderDescriptor) -> ResolvedEndpoints? {
        guard let target = Self.discoveryTarget(provider) else { return Self.endpoints(provider, discovered: nil) }
        return discovery.cachedMetadata(for: target.issuer, documentIssuer: target.documentIssuer).map {
            Self.endpoints(provider, discovered: $0)
        }
    }

    /// The configured endpoints, completed by the discovery document `discovered` where the config left them out.
    private static func endpoints(_ provider: ProviderDescriptor, discovered metadata: OIDCProviderMetadata?)
        -> ResolvedEndpoints
    {
        var endpoints = ResolvedEndpoints(
            authorization: provider.endpoints.authorization, token: provider.endpoints.token,
            userInfo: provider.endpoints.userInfo, jwks: provider.endpoints.jwks, issuer: provider.issuer,
            sendsIssParameter: false)
        guard let metadata else { return endpoints }
        endpoints.authorization = endpoints.authorization ?? URL(string: metadata.authorizationEndpoint)
        endpoints.token = endpoints.token ?? URL(string: metadata.tokenEndpoint)
        endpoints.userInfo = endpoints.userInfo ?? metadata.userinfoEndpoint.flatMap { URL(string: $0) }
        endpoints.jwks = endpoints.jwks ?? URL(string: metadata.jwksURI)
        endpoints.issuer = endpoints.issuer ?? .exact(metadata.issuer)
        endpoints.sendsIssParameter = metadata.authorizationResponseIssParameterSupported ?? false
        return endpoints
    }

    /// The issuer whose discovery document completes `provider`'s endpoints; nil when none is needed.
    static func discoveryTarget(_ provider: ProviderDescriptor) -> (issuer: String, documentIssuer: String?)? {
        guard provider.protocolKind == .oidc,
            let issuerURL = provider.discoveryIssuer
                ?? provider.issuer.flatMap({
                    if case .exact(let value) = $0 { return URL(string: value) }
                    return nil
                }),
            // Discovery only completes what the config left out, so a fully configured provider never needs it.
            provider.needsDiscovery
        else { return nil }
        let documentIssuer: String? =
            if case .tenantTemplate(let template) = provider.issuer { template } else { nil }
        return (issuerURL.absoluteString, documentIssuer)
    }

    /// Whether starting a sign-in with `provider` fetches its discovery document first (not cached): such starts count
    /// against the start rate limit (HTTP-API.md §2.4 `startRateLimit`), as OAuth 1.0a's do (``OAuth1Driver``).
    func startCallsProvider(_ provider: ProviderDescriptor) async -> Bool {
        guard let target = Self.discoveryTarget(provider) else { return false }
        return !(await discovery.isCached(issuer: target.issuer, documentIssuer: target.documentIssuer))
    }
}
