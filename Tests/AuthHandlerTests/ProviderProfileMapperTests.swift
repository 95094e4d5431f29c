import Foundation
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP

struct ProviderProfileMapperTests {
    static func json(_ text: String) throws -> JSONValue {
        try #require(JSONValue.parse(Array(text.utf8)))
    }

    /// Shape from Twitter's GET account/verify_credentials documentation; the id exceeds 2^53.
    @Test func twitterPrefersIDStringAndKeepsTheDocument() throws {
        let document = try Self.json(
            #"{"id":1234567890123456789,"id_str":"1234567890123456789","name":"Twitter Dev","screen_name":"TwitterDev","email":"dev@example.com"}"#
        )
        let profile = try ProfileMapper.twitter(
            document, trustsEmail: try #require(BuiltInProvider.named("twitter.com")).returnsOnlyVerifiedEmail)
        #expect(profile.id == "1234567890123456789")
        #expect(profile.screenName == "TwitterDev")
        #expect(profile.displayName == "Twitter Dev")
        #expect(profile.email == "dev@example.com")
        #expect(profile.raw == document)
    }

    @Test func twitterWithoutIDIsRefusedAndCustomOAuth1FallsBackToTheTokenAnswer() throws {
        #expect(
            throws: ProfileMappingError.missingIdentifier(
                source: "OAuth 1.0a profile (verify_credentials)", fields: ["id_str", "id", "user_id"])
        ) {
            try ProfileMapper.twitter(try Self.json(#"{"id_str":"","screen_name":"x"}"#))
        }
        let profile = try ProfileMapper.twitter(
            nil,
            accessTokenFields: [
                URLFormField(name: "user_id", value: "6253282"), URLFormField(name: "screen_name", value: "twitterapi"),
            ])
        #expect(profile.id == "6253282")
        #expect(profile.screenName == "twitterapi")
        #expect(throws: ProfileMappingError.notAnObject(source: "OAuth 1.0a profile (verify_credentials)")) {
            try ProfileMapper.twitter(.array([]))
        }
    }

    @Test(
        arguments: [
            (#""email_verified":true"#, "jane@example.com"),
            (#""email_verified":"true""#, "jane@example.com"),
            (#""email_verified":false"#, nil),
            (#""email_verified":"false""#, nil),
            (#""unrelated":1"#, nil),
        ] as [(String, String?)])
    func oidcReportsOnlyVerifiedEmail(_ member: String, _ expected: String?) throws {
        let claims = try Self.json(
            #"{"iss":"https://accounts.google.com","sub":"110169484474386276334","name":"Jane","email":"jane@example.com",\#(member)}"#
        )
        let profile = try ProfileMapper.oidc(claims: claims)
        #expect(profile.id == "110169484474386276334")
        #expect(profile.displayName == "Jane")
        #expect(profile.email == expected)
        #expect(profile.raw == .object(["claims": claims]))
    }

    @Test func oidcUserInfoCompletesTheClaimsWhenTheSubjectMatches() throws {
        let claims = try Self.json(#"{"sub":"248289761001"}"#)
        let userInfo = try Self.json(
            #"{"sub":"248289761001","name":"Jane Doe","preferred_username":"j.doe","email":"janedoe@example.com","email_verified":true}"#
        )
        let profile = try ProfileMapper.oidc(claims: claims, userInfo: userInfo)
        #expect(profile.displayName == "Jane Doe")
        #expect(profile.screenName == "j.doe")
        #expect(profile.email == "janedoe@example.com")
        #expect(profile.raw == .object(["claims": claims, "userinfo": userInfo]))

        #expect(throws: ProfileMappingError.subjectMismatch) {
            try ProfileMapper.oidc(claims: claims, userInfo: try Self.json(#"{"sub":"other"}"#))
        }
        #expect(throws: ProfileMappingError.subjectMismatch) {
            try ProfileMapper.oidc(claims: claims, userInfo: try Self.json(#"{"name":"no sub"}"#))
        }
        #expect(throws: ProfileMappingError.missingIdentifier(source: "ID token claims", fields: ["sub"])) {
            try ProfileMapper.oidc(claims: try Self.json(#"{"sub":17.5}"#))
        }
    }

    @Test func gitHubUsesTheNumericIDAndThePrimaryVerifiedEmail() throws {
        let user = try Self.json(#"{"login":"octocat","id":583231,"name":"The Octocat","email":"public@example.com"}"#)
        let emails = try Self.json(
            #"[{"email":"old@example.com","primary":false,"verified":true},{"email":"octocat@github.com","primary":true,"verified":true,"visibility":"public"}]"#
        )
        let profile = try ProfileMapper.github(user: user, emails: emails)
        #expect(profile.id == "583231")
        #expect(profile.screenName == "octocat")
        #expect(profile.displayName == "The Octocat")
        #expect(profile.email == "octocat@github.com")
        #expect(profile.raw == .object(["user": user, "emails": emails]))
    }

    @Test func gitHubDropsAnUnverifiedPrimaryAndThePublicEmail() throws {
        let user = try Self.json(#"{"login":"octocat","id":583231,"email":"public@example.com"}"#)
        let emails = try Self.json(
            #"[{"email":"unverified@example.com","primary":true,"verified":false},{"email":"other@example.com","primary":false,"verified":true}]"#
        )
        #expect(try ProfileMapper.github(user: user, emails: emails).email == nil)
        #expect(try ProfileMapper.github(user: user).email == nil)
        #expect(throws: ProfileMappingError.missingIdentifier(source: "GitHub /user", fields: ["id"])) {
            try ProfileMapper.github(user: try Self.json(#"{"login":"octocat","id":null}"#))
        }
    }

    @Test func facebookMe() throws {
        let document = try Self.json(#"{"id":"10224161889375098","name":"Jane Doe","email":"jane@example.com"}"#)
        let profile = try ProfileMapper.profile(
            .facebook, document: document,
            trustsEmail: try #require(BuiltInProvider.named("facebook.com")).returnsOnlyVerifiedEmail)
        #expect(
            profile
                == ProviderProfile(
                    id: "10224161889375098", displayName: "Jane Doe", email: "jane@example.com", raw: document))
        #expect(throws: ProfileMappingError.missingIdentifier(source: "Facebook /me", fields: ["id"])) {
            try ProfileMapper.facebook(try Self.json(#"{"name":"no id"}"#))
        }
    }

    @Test func genericOAuth2UserInfo() throws {
        let forge = try Self.json(
            #"{"id":42,"login":"forge-user","full_name":"F","name":"Forge User","email":"f@example.com","email_verified":true}"#
        )
        let profile = try ProfileMapper.oauth2UserInfo(forge)
        #expect(profile.id == "42")
        #expect(profile.screenName == "forge-user")
        #expect(profile.displayName == "Forge User")
        #expect(profile.email == "f@example.com")

        let oidcLike = try Self.json(
            #"{"sub":"abc","id":7,"preferred_username":"abc-user","email":"a@example.com","email_verified":false}"#)
        let second = try ProfileMapper.oauth2UserInfo(oidcLike)
        #expect(second.id == "abc")
        #expect(second.screenName == "abc-user")
        #expect(second.email == nil)

        #expect(throws: ProfileMappingError.missingIdentifier(source: "OAuth 2 user-info", fields: ["sub", "id"])) {
            try ProfileMapper.oauth2UserInfo(try Self.json(#"{"sub":"line\nbreak"}"#))
        }
    }

    /// HTTP-API.md §3.3: an e-mail only when the provider says it is verified. A generic OAuth 2 or OAuth 1.0a
    /// document without `email_verified` (`{"sub", "email"}`) gives none, unless the provider is configured with
    /// `trustEmail`; an explicit `false` gives none even then.
    @Test(
        arguments: [
            (#""email_verified":true"#, false, "jane@example.com"),
            (#""email_verified":"true""#, false, "jane@example.com"),
            ("", false, nil),
            (#""email_verified":null"#, false, nil),
            (#""email_verified":"yes""#, false, nil),
            (#""email_verified":false"#, false, nil),
            ("", true, "jane@example.com"),
            (#""email_verified":false"#, true, nil),
            (#""email_verified":"false""#, true, nil),
        ] as [(String, Bool, String?)])
    func customProvidersReportOnlyVouchedEmail(_ member: String, _ trustsEmail: Bool, _ expected: String?) throws {
        let members =
            [#""sub":"248289761001""#, #""id_str":"248289761001""#, #""email":"jane@example.com""#]
            + (member.isEmpty ? [] : [member])
        let document = try Self.json("{" + members.joined(separator: ",") + "}")
        for mapping in [ProfileMapping.oauth2UserInfo, .twitter, .oidc] {
            let profile = try ProfileMapper.profile(mapping, document: document, trustsEmail: trustsEmail)
            #expect(profile.email == expected, "\(mapping) \(member) trustsEmail \(trustsEmail)")
        }
        #expect(try ProfileMapper.twitter(document, trustsEmail: trustsEmail).email == expected)
    }

    /// Which built-in reports `email` without a verified flag: Twitter and Facebook only (HTTP-API.md §3.3).
    @Test func theCatalogueSaysWhichBuiltInsReturnOnlyVerifiedEmail() {
        let trusting = BuiltInProvider.all.filter(\.returnsOnlyVerifiedEmail).map(\.id).sorted()
        #expect(trusting == ["facebook.com", "twitter.com"])
    }
}
