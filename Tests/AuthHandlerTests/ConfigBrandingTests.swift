import Foundation
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP

/// `branding` (HTTP-API.md §2.11) and a provider's `displayName` (§2.6): names shown to people.
struct ConfigBrandingTests {
    /// The problems of the fixture config with `overrides`, as `path: message` lines.
    static func problems(_ overrides: String) throws -> [String] {
        try ConfigFixture.report(overriding: overrides).problems.map { "\($0.path): \($0.message)" }
    }

    @Test func brandingAndDisplayNamesAreReadAndDefaultToNone() throws {
        let report = try ConfigFixture.report(
            overriding: """
                {"branding": {"name": "Acme Notes"},
                 "providers": {"github.com": {"clientId": "c", "clientSecret": {"env": "FIXTURE_SECRET"},
                                              "displayName": "GitHub Enterprise"}}}
                """)
        #expect(report.problems == [])
        let config = try #require(report.config)
        #expect(config.branding == Branding(name: "Acme Notes"))
        #expect(config.providers["github.com"]?.displayName == "GitHub Enterprise")
        let plain = try #require(try ConfigFixture.report(overriding: "{}").config)
        #expect(plain.branding == nil)
        #expect(plain.providers["github.com"]?.displayName == nil)
    }

    @Test(arguments: [
        (#"{"branding": {}}"#, "branding.name: required in branding"),
        (#"{"branding": "Acme"}"#, "branding: expected an object, got a string"),
        (#"{"branding": {"name": ""}}"#, "branding.name: is empty"),
        (#"{"branding": {"name": 7}}"#, "branding.name: expected a string"),
        (#"{"branding": {"name": "Acme\nNotes"}}"#, "branding.name: contains a control character"),
        (#"{"branding": {"name": " Acme"}}"#, "branding.name: starts or ends with a space"),
        (
            "{\"branding\": {\"name\": \"\(String(repeating: "a", count: 61))\"}}",
            "branding.name: is 61 characters long"
        ),
        (#"{"branding": {"name": "Acme", "colour": "red"}}"#, "branding.colour: unknown key"),
        (
            #"{"providers": {"github.com": {"clientId": "c", "clientSecret": "s", "displayName": "\t"}}}"#,
            #"providers["github.com"].displayName: contains a control character"#
        ),
    ])
    func badNamesAreRefusedWithTheirPath(overrides: String, expected: String) throws {
        let problems = try Self.problems(overrides)
        #expect(problems.contains { $0.hasPrefix(expected) }, "\(problems)")
    }

    @Test func sixtyCharactersOfAnyScriptAreAccepted() throws {
        let name = String(repeating: "é", count: 59) + "😀"
        #expect(try Self.problems("{\"branding\": {\"name\": \"\(name)\"}}") == [])
    }

    @Test func descriptorsTakeTheConfiguredNameElseTheCataloguesElseTheID() throws {
        let report = try ConfigFixture.report(
            overriding: """
                {"providers": {
                  "github.com": {"clientId": "c", "clientSecret": {"env": "FIXTURE_SECRET"}},
                  "twitter.com": {"consumerKey": "k", "consumerSecret": {"env": "FIXTURE_SECRET"}},
                  "oidc.corp": {"protocol": "oidc", "clientId": "c", "clientSecret": {"env": "FIXTURE_SECRET"},
                                "issuer": "https://corp.example"},
                  "oauth2.forge": {"protocol": "oauth2", "clientId": "c", "clientSecret": {"env": "FIXTURE_SECRET"},
                                   "displayName": "Forge", "endpoints": {"authorization": "https://forge.example/a",
                                                                        "token": "https://forge.example/t"}}}}
                """)
        let config = try #require(report.config, "\(report.problems)")
        let registry = try ProviderRegistry(config: config, environment: ConfigFixture.environment)
        #expect(registry["github.com"]?.displayName == "GitHub")
        #expect(registry["twitter.com"]?.displayName == "X (Twitter)")
        #expect(registry["oidc.corp"]?.displayName == "oidc.corp")
        #expect(registry["oauth2.forge"]?.displayName == "Forge")
        for entry in BuiltInProvider.all { #expect(!entry.displayName.isEmpty && entry.displayName != entry.id) }
    }
}
