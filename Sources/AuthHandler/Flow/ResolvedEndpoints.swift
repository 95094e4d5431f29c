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

extension SignInFlow {
    /// The endpoints of `provider`: configured ones win; an OIDC provider missing any is completed by discovery.
    func resolvedEndpoints(_ provider: ProviderDescriptor) async throws(HandlerError) -> ResolvedEndpoints {
        var endpoints = ResolvedEndpoints(
            authorization: provider.endpoints.authorization, token: provider.endpoints.token,
            userInfo: provider.endpoints.userInfo, jwks: provider.endpoints.jwks, issuer: provider.issuer,
            sendsIssParameter: false)
        guard provider.protocolKind == .oidc,
            let issuerURL = provider.discoveryIssuer
                ?? provider.issuer.flatMap({
                    if case .exact(let value) = $0 { return URL(string: value) }
                    return nil
                })
        else { return endpoints }
        // Discovery only completes what the config left out, so a fully configured provider never needs it.
        guard provider.needsDiscovery else { return endpoints }
        let documentIssuer: String? =
            if case .tenantTemplate(let template) = provider.issuer { template } else { nil }
        let metadata: OIDCProviderMetadata
        do {
            metadata = try await discovery.metadata(for: issuerURL.absoluteString, documentIssuer: documentIssuer)
        } catch {
            throw .providerError("OpenID discovery for \(provider.id) failed: \(error)")
        }
        endpoints.authorization = endpoints.authorization ?? URL(string: metadata.authorizationEndpoint)
        endpoints.token = endpoints.token ?? URL(string: metadata.tokenEndpoint)
        endpoints.userInfo = endpoints.userInfo ?? metadata.userinfoEndpoint.flatMap { URL(string: $0) }
        endpoints.jwks = endpoints.jwks ?? URL(string: metadata.jwksURI)
        endpoints.issuer = endpoints.issuer ?? .exact(metadata.issuer)
        endpoints.sendsIssParameter = metadata.authorizationResponseIssParameterSupported ?? false
        return endpoints
    }
}
