import Foundation
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP

struct ReservedParametersTests {
    /// The OAuth 2 and OIDC names HTTP-API.md §3.1 ("Reserved custom parameters") reserves, written out here so that
    /// a name dropped from the code's list fails the tests below.
    static let documentedOAuth2Names = [
        "client_id", "redirect_uri", "response_type", "scope", "state", "code_challenge", "code_challenge_method",
        "nonce", "response_mode", "request", "request_uri",
    ]

    @Test func documentedListIsComplete() {
        #expect(Set(ReservedParameters.oauth2Names) == Set(Self.documentedOAuth2Names))
    }

    @Test(arguments: documentedOAuth2Names)
    func everyOAuth2NameIsRefused(_ name: String) {
        #expect(ReservedParameters.isReserved(name, for: .oauth2))
        #expect(throws: ReservedParameters.Violation.reserved(name: name, family: .oauth2)) {
            try ReservedParameters.validate([name: "x"], for: .oauth2)
        }
    }

    @Test(arguments: [
        "oauth_callback", "oauth_token", "oauth_verifier", "oauth_consumer_key", "oauth_signature",
        "oauth_signature_method", "oauth_timestamp", "oauth_nonce", "oauth_version", "oauth_", "oauth_anything",
    ])
    func everyOAuth1PrefixedNameIsRefused(_ name: String) {
        #expect(throws: ReservedParameters.Violation.reserved(name: name, family: .oauth1)) {
            try ReservedParameters.validate([name: "x"], for: .oauth1)
        }
    }

    @Test(arguments: [
        ("Scope", ReservedParameters.ProtocolFamily.oauth2), ("STATE", .oauth2), ("Code_Challenge_Method", .oauth2),
        ("Redirect_URI", .oauth2), ("OAuth_Token", .oauth1), ("OAUTH_CALLBACK", .oauth1), ("Oauth_x", .oauth1),
    ])
    func caseVariantsAreRefusedToo(_ name: String, _ family: ReservedParameters.ProtocolFamily) {
        #expect(throws: ReservedParameters.Violation.reserved(name: name, family: family)) {
            try ReservedParameters.validate([URLFormField(name: name, value: "x")], for: family)
        }
    }

    @Test(arguments: [
        ("login_hint", ReservedParameters.ProtocolFamily.oauth2), ("prompt", .oauth2), ("hd", .oauth2),
        ("access_type", .oauth2), ("include_granted_scopes", .oauth2), ("scopes", .oauth2), ("scope_x", .oauth2),
        ("nonce2", .oauth2), ("oauth_token", .oauth2), ("screen_name", .oauth1), ("force_login", .oauth1),
        ("lang", .oauth1), ("oauth", .oauth1), ("xoauth_foo", .oauth1), ("oauth-token", .oauth1), ("scope", .oauth1),
        ("state", .oauth1),
    ])
    func otherNamesPass(_ name: String, _ family: ReservedParameters.ProtocolFamily) throws {
        #expect(!ReservedParameters.isReserved(name, for: family))
        try ReservedParameters.validate([name: "x"], for: family)
    }

    @Test func emptyParametersPass() throws {
        for family in ReservedParameters.ProtocolFamily.allCases {
            try ReservedParameters.validate([String: String](), for: family)
        }
    }

    @Test func theFirstRefusedNameInByteOrderIsReportedWhateverTheInputOrder() {
        let names = ["state", "login_hint", "nonce", "scope"]
        for ordering in [names, names.reversed(), names.sorted()] {
            #expect(throws: ReservedParameters.Violation.reserved(name: "nonce", family: .oauth2)) {
                try ReservedParameters.validate(names: ordering, for: .oauth2)
            }
        }
        #expect(throws: ReservedParameters.Violation.reserved(name: "OAuth_b", family: .oauth1)) {
            try ReservedParameters.validate(names: ["oauth_a", "OAuth_b", "screen_name"], for: .oauth1)
        }
    }

    @Test func messageNamesTheParameterAndWhatToDo() {
        let scope = ReservedParameters.Violation.reserved(name: "scope", family: .oauth2).description
        #expect(scope.contains("\"scope\""))
        #expect(scope.contains("use the scopes parameter instead of scope"))
        let callback = ReservedParameters.Violation.reserved(name: "oauth_callback", family: .oauth1).description
        #expect(callback.contains("\"oauth_callback\""))
        #expect(callback.contains("OAuth 1.0a"))
        for name in ReservedParameters.oauth2Names {
            #expect(ReservedParameters.Violation.reserved(name: name, family: .oauth2).advice != "remove it", "\(name)")
        }
    }

    /// OpenID Connect Core §6: a request object (by value or by reference) overrides query parameters.
    @Test(arguments: ["request", "request_uri", "Request", "REQUEST_URI"])
    func requestObjectParametersAreReserved(_ name: String) {
        #expect(ReservedParameters.isReserved(name, for: .oauth2))
        #expect(throws: ReservedParameters.Violation.reserved(name: name, family: .oauth2)) {
            try ReservedParameters.validate([name: "x"], for: .oauth2)
        }
    }

    @Test(arguments: [
        "", "login hint", "login_hint\u{0}", "a&b", "a=b", "st%61te", "nonce\n", "é", "a/b", "a+b", "[x]", "\u{2028}",
    ])
    func malformedNamesAreADistinctError(_ name: String) {
        for family in ReservedParameters.ProtocolFamily.allCases {
            #expect(!ReservedParameters.isWellFormed(name))
            #expect(throws: ReservedParameters.Violation.invalidName(name)) {
                try ReservedParameters.validate([URLFormField(name: name, value: "x")], for: family)
            }
        }
    }

    @Test(arguments: ["login_hint", "a.b", "x~y", "ui-locales", "A9"])
    func unreservedCharactersAreWellFormed(_ name: String) {
        #expect(ReservedParameters.isWellFormed(name))
    }

    @Test func malformedNameMessageIsPrintableAndDoesNotClaimReservation() {
        let violation = ReservedParameters.Violation.invalidName("a\nb\"c")
        #expect(violation.name == "a\nb\"c")
        #expect(!violation.description.contains("\n"))
        #expect(!violation.description.contains("reserved"))
        #expect(violation.description.contains("[A-Za-z0-9._~-]") || violation.description.contains(". _ ~ -"))
    }

    /// The start request refuses them before any protocol code sees them (the protocol code sends what it is given).
    static func startRefusal(_ name: String, providerID: String, config: ProviderConfig) throws -> APIError? {
        let registry = try ProviderRegistryTests.registry([providerID: config])
        let provider = try #require(registry[providerID])
        let object = String(decoding: try JSONEncoder().encode([name: "x"]), as: UTF8.self)
        do {
            _ = try StartRequest.customParameters(object, provider: provider)
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: ReservedParameters.oauth2Names + ["State", "NONCE"])
    func anOAuth2StartRefusesThem(_ name: String) throws {
        let refusal = try Self.startRefusal(name, providerID: "google.com", config: ProviderRegistryTests.oauth2())
        #expect(refusal?.code == .reservedCustomParameter)
        #expect(refusal?.message == ReservedParameters.Violation.reserved(name: name, family: .oauth2).description)
    }

    @Test(arguments: ["oauth_callback", "OAuth_Token", "oauth_anything"])
    func anOAuth1StartRefusesThem(_ name: String) throws {
        let twitter = ProviderConfig(
            protocolKind: .oauth1, consumerKey: "ck", consumerSecret: ProviderRegistryTests.secret,
            signatureMethod: .hmacSHA1)
        let refusal = try Self.startRefusal(name, providerID: "twitter.com", config: twitter)
        #expect(refusal?.code == .reservedCustomParameter)
        #expect(refusal?.message == ReservedParameters.Violation.reserved(name: name, family: .oauth1).description)
    }
}
