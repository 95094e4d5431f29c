import Foundation
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP

/// Every ``BuiltInProvider`` entry is the one place its provider is described: config validation accepts it
/// with minimal credentials, and the registry builds it with the entry's protocol, scopes and defaults.
struct ProviderCatalogueTests {
    /// The least a provider of `kind` needs in the config: its client (or consumer) id and secret.
    static func minimalJSON(_ kind: ProviderConfig.ProtocolKind) -> String {
        switch kind {
        case .oauth1: #"{"consumerKey": "ck", "consumerSecret": {"env": "FIXTURE_SECRET"}}"#
        case .oauth2, .oidc: #"{"clientId": "c", "clientSecret": {"env": "FIXTURE_SECRET"}}"#
        }
    }

    @Test(arguments: BuiltInProvider.all.map(\.id))
    func entryIsAcceptedByValidationAndBuildsItsDescriptor(_ id: String) throws {
        let entry = try #require(BuiltInProvider.named(id))
        let report = try ConfigFixture.report(
            overriding: #"{"providers": {"\#(id)": \#(Self.minimalJSON(entry.protocolKind))}}"#)
        #expect(report.errors == [], "\(report.errors.map(\.description))")
        let config = try #require(report.config)
        let provider = try #require(config.providers[id])
        #expect(provider.protocolKind == entry.protocolKind)
        #expect(provider.responseMode == (entry.protocolKind == .oauth1 ? nil : entry.responseMode))

        let registry = try ProviderRegistry(config: config, environment: ConfigFixture.environment)
        let descriptor = try #require(registry[id])
        #expect(descriptor.isBuiltIn)
        #expect(descriptor.protocolKind == entry.protocolKind)
        #expect(descriptor.defaultScopes == entry.scopes)
        #expect(descriptor.endpoints == entry.endpoints)
        #expect(descriptor.profileMapping == entry.profileMapping)
        #expect(descriptor.responseMode == entry.responseMode)
        #expect(descriptor.issuer == entry.issuer)
        #expect(descriptor.idTokenAlgorithms == entry.idTokenAlgorithms)
        if entry.protocolKind != .oauth1 {
            #expect(
                descriptor.tokenEndpointAuth
                    == (entry.requiresClientSecretPost ? .clientSecretPost : .clientSecretBasic))
        }
    }

    @Test func onlyCatalogueSignersAcceptTheSigningKeySettings() throws {
        for entry in BuiltInProvider.all where entry.protocolKind != .oauth1 {
            let report = try ConfigFixture.report(
                overriding:
                    #"{"providers": {"\#(entry.id)": {"clientId": "c", "teamId": "T", "keyId": "K", "privateKey": {"env": "FIXTURE_SECRET"}}}}"#
            )
            let paths = report.errors.map(\.path.description)
            #expect(
                paths.contains { $0.hasSuffix(".teamId") } == !entry.signsES256ClientSecret, "\(entry.id): \(paths)")
            #expect(
                paths.contains { $0.hasSuffix(".clientSecret") } == !entry.signsES256ClientSecret,
                "\(entry.id): \(paths)")
        }
        #expect(!BuiltInProvider.es256ClientSecretIDs.isEmpty)
    }
}
