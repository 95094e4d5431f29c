import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerProtocols
import Foundation

/// The provider catalogue: one entry per built-in provider id (HTTP-API.md §2.6) with its protocol, real
/// endpoints, scopes, issuer, ID-token algorithm, response mode, profile mapping and quirks.
///
/// Config validation, ``ProviderRegistry`` and profile mapping read these entries; no other file names a
/// built-in id. Adding a provider is adding an entry here. Any `endpoints` key in the configuration
/// replaces the default.
package struct BuiltInProvider: Sendable {
    /// The Facebook Graph API version in the default URLs (v26.0, released 2026-07-29; see
    /// https://developers.facebook.com/docs/graph-api/changelog/versions/).
    package static let facebookGraphVersion = "v26.0"

    package let id: String
    /// The provider's own name, as people know it: the words on its button in the sign-in picker
    /// (HTTP-API.md §3.6). Only the name is used, never a logo (HTTP-API.md §3.6).
    package let displayName: String
    package let protocolKind: ProviderConfig.ProtocolKind
    package let endpoints: ProviderEndpoints
    package let scopes: [String]
    /// The issuer ID tokens carry; nil for OAuth 1.0a and plain OAuth 2.
    package let issuer: ExpectedIssuer?
    /// The issuer whose discovery document describes the provider (differs from `issuer` for Microsoft).
    package let discoveryIssuer: URL?
    package let idTokenAlgorithms: [JWSAlgorithm]
    package let profileMapping: ProfileMapping
    package let responseMode: ProviderConfig.ResponseMode?
    /// Whether the provider documents only form-body client credentials at its token endpoint.
    package let requiresClientSecretPost: Bool
    /// Whether the client secret may instead be an ES256 JWT signed from `teamId`, `keyId` and `privateKey`
    /// (``AppleClientSecret``); only such providers accept those three settings.
    package let signsES256ClientSecret: Bool
    /// Whether the provider documents that it returns `email` only once the user has confirmed the address, so
    /// the profile reports it without a verified flag (``ProfileMapper``, HTTP-API.md §3.3).
    package let returnsOnlyVerifiedEmail: Bool

    /// The built-in defaults for `id`, or nil for a custom id.
    package static func named(_ id: String) -> BuiltInProvider? {
        all.first { $0.id == id }
    }

    /// Every built-in provider.
    package static let all: [BuiltInProvider] = [twitter, google, microsoft, apple, facebook, github]

    /// The built-in provider ids, sorted.
    package static var ids: [String] { all.map(\.id).sorted() }

    /// The ids of the providers whose client secret may be an ES256 JWT, sorted.
    package static var es256ClientSecretIDs: [String] { all.filter(\.signsES256ClientSecret).map(\.id).sorted() }

    /// Twitter (X) OAuth 1.0a; `oauth/authenticate` signs in an already-authorized user without a prompt,
    /// and the `.twitter` profile mapping reads `verify_credentials` (``ProfileMapper/twitter(_:accessTokenFields:trustsEmail:)``),
    /// whose `email` is null when the account's address is not verified (`include_email` in Twitter's
    /// `verify_credentials` reference).
    package static let twitter = BuiltInProvider(
        id: "twitter.com", displayName: "X (Twitter)", protocolKind: .oauth1,
        endpoints: ProviderEndpoints(
            requestToken: url("https://api.twitter.com/oauth/request_token"),
            authorize: url("https://api.twitter.com/oauth/authenticate"),
            accessToken: url("https://api.twitter.com/oauth/access_token"),
            profile: url(
                "https://api.twitter.com/1.1/account/verify_credentials.json?include_email=true&skip_status=true")),
        scopes: [], issuer: nil, discoveryIssuer: nil, idTokenAlgorithms: [], profileMapping: .twitter,
        responseMode: nil, requiresClientSecretPost: false, signsES256ClientSecret: false,
        returnsOnlyVerifiedEmail: true)

    /// Google, from https://accounts.google.com/.well-known/openid-configuration.
    package static let google = BuiltInProvider(
        id: "google.com", displayName: "Google", protocolKind: .oidc,
        endpoints: ProviderEndpoints(
            authorization: url("https://accounts.google.com/o/oauth2/v2/auth"),
            token: url("https://oauth2.googleapis.com/token"),
            userInfo: url("https://openidconnect.googleapis.com/v1/userinfo"),
            jwks: url("https://www.googleapis.com/oauth2/v3/certs")),
        scopes: ["openid", "email", "profile"], issuer: .exact("https://accounts.google.com"),
        discoveryIssuer: url("https://accounts.google.com"), idTokenAlgorithms: [.rs256], profileMapping: .oidc,
        responseMode: .query, requiresClientSecretPost: false, signsES256ClientSecret: false,
        returnsOnlyVerifiedEmail: false)

    /// Microsoft identity platform v2.0, `common` tenant: tokens carry their tenant's issuer.
    package static let microsoft = BuiltInProvider(
        id: "microsoft.com", displayName: "Microsoft", protocolKind: .oidc,
        endpoints: ProviderEndpoints(
            authorization: url("https://login.microsoftonline.com/common/oauth2/v2.0/authorize"),
            token: url("https://login.microsoftonline.com/common/oauth2/v2.0/token"),
            userInfo: url("https://graph.microsoft.com/oidc/userinfo"),
            jwks: url("https://login.microsoftonline.com/common/discovery/v2.0/keys")),
        scopes: ["openid", "email", "profile"],
        issuer: .tenantTemplate("https://login.microsoftonline.com/{tenantid}/v2.0"),
        discoveryIssuer: url("https://login.microsoftonline.com/common/v2.0"), idTokenAlgorithms: [.rs256],
        profileMapping: .oidc, responseMode: .query, requiresClientSecretPost: false, signsES256ClientSecret: false,
        returnsOnlyVerifiedEmail: false)

    /// Sign in with Apple: `form_post` (required when name or email is requested), no userinfo endpoint,
    /// a token endpoint that takes the client secret in the body only, and a client secret that may be
    /// an ES256 JWT signed with the developer's key.
    package static let apple = BuiltInProvider(
        id: "apple.com", displayName: "Apple", protocolKind: .oidc,
        endpoints: ProviderEndpoints(
            authorization: url("https://appleid.apple.com/auth/authorize"),
            token: url("https://appleid.apple.com/auth/token"), jwks: url("https://appleid.apple.com/auth/keys")),
        scopes: ["name", "email"], issuer: .exact("https://appleid.apple.com"),
        discoveryIssuer: url("https://appleid.apple.com"), idTokenAlgorithms: [.rs256], profileMapping: .oidc,
        responseMode: .formPost, requiresClientSecretPost: true, signsES256ClientSecret: true,
        returnsOnlyVerifiedEmail: false)

    /// Facebook Login (manual flow) and the Graph API `/me`, whose `email` is left out when the user has no valid
    /// (confirmed) address (Graph API User reference, `email`).
    package static let facebook = BuiltInProvider(
        id: "facebook.com", displayName: "Facebook", protocolKind: .oauth2,
        endpoints: ProviderEndpoints(
            authorization: url("https://www.facebook.com/\(facebookGraphVersion)/dialog/oauth"),
            token: url("https://graph.facebook.com/\(facebookGraphVersion)/oauth/access_token"),
            userInfo: url("https://graph.facebook.com/\(facebookGraphVersion)/me?fields=id,name,email")),
        scopes: ["email", "public_profile"], issuer: nil, discoveryIssuer: nil, idTokenAlgorithms: [],
        profileMapping: .facebook, responseMode: .query, requiresClientSecretPost: true, signsES256ClientSecret: false,
        returnsOnlyVerifiedEmail: true)

    /// GitHub OAuth apps; the `.github` profile mapping makes the verified-e-mail call to `/user/emails`
    /// (``ProviderDescriptor/emailsEndpoint``).
    package static let github = BuiltInProvider(
        id: "github.com", displayName: "GitHub", protocolKind: .oauth2,
        endpoints: ProviderEndpoints(
            authorization: url("https://github.com/login/oauth/authorize"),
            token: url("https://github.com/login/oauth/access_token"), userInfo: url("https://api.github.com/user")),
        scopes: ["read:user", "user:email"], issuer: nil, discoveryIssuer: nil, idTokenAlgorithms: [],
        profileMapping: .github, responseMode: .query, requiresClientSecretPost: true, signsES256ClientSecret: false,
        returnsOnlyVerifiedEmail: false)

    /// A literal URL of this file; nil only for a typo, which the built-in provider tests catch.
    private static func url(_ string: String) -> URL? { URL(string: string) }
}
