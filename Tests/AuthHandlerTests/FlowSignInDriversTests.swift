import AuthHandlerCrypto
import AuthHandlerProtocols
import Foundation
import TestSupport
import Testing

@testable import AuthHandlerCore

/// `SignInDrivers`: each provider's protocol steps are chosen once, by its protocol (docs/ARCHITECTURE.md, `Flow`).
struct FlowSignInDriversTests {
    static func provider(_ id: String, _ kind: ProviderConfig.ProtocolKind) -> ProviderDescriptor {
        ProviderDescriptor(
            id: id, protocolKind: kind,
            endpoints: ProviderEndpoints(authorization: URL(string: "https://idp.example/authorize")),
            clientID: "client", clientSecret: .fixed(Secret("secret")), profileMapping: .oauth2UserInfo)
    }

    static func drivers(_ providers: [ProviderDescriptor]) -> SignInDrivers {
        let http = ScriptedHTTP()
        let clock = TestClock()
        return SignInDrivers(
            providers: ProviderRegistry(descriptors: providers),
            context: ProtocolContext(
                http: http, redirectURI: "https://auth.example.com/__/auth/handler", providerTimeout: .seconds(10),
                sessionTTL: .seconds(600), now: clock.read),
            endpoints: EndpointResolver(discovery: OIDCDiscovery(http: http, now: clock.read)),
            validator: IDTokenValidator(keys: JWKSCache(http: http, now: clock.read)),
            providerCalls: OutboundCallLimit(maximum: 1))
    }

    @Test func eachProtocolHasItsDriver() {
        let oauth1 = Self.provider("oauth1.test", .oauth1)
        let oauth2 = Self.provider("oauth2.test", .oauth2)
        let oidc = Self.provider("oidc.test", .oidc)
        let drivers = Self.drivers([oauth1, oauth2, oidc])
        #expect(drivers[oauth1] is OAuth1Driver)
        #expect(drivers[oauth2] is OAuth2Driver)
        #expect(drivers[oidc] is OIDCDriver)
    }

    @Test func aProviderTheRegistryDoesNotHoldGetsTheDriverOfItsProtocol() {
        let drivers = Self.drivers([])
        #expect(drivers[Self.provider("oauth1.test", .oauth1)] is OAuth1Driver)
        #expect(drivers[Self.provider("oidc.test", .oidc)] is OIDCDriver)
    }

    @Test func anOAuth1StartAlwaysCallsTheProviderAndNeverAnswersAtOnce() async {
        let oauth1 = Self.provider("oauth1.test", .oauth1)
        let driver = Self.drivers([oauth1])[oauth1]
        #expect(await driver.beginCallsProvider())
        let request = StartRequest(
            deviceRequest: DeviceRequest(
                providerID: oauth1.id, scopes: [], customParameters: nil, authType: .signInViaRedirect,
                resultChallenge: nil, client: "192.0.2.1", createdAt: Date(), expiresAt: Date(), resultCode: "r"),
            provider: oauth1, customParameters: [])
        #expect(driver.beginAtOnce(request) == nil)
    }
}
