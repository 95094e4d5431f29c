/// Which provider answer shape becomes the `ProviderProfile`; see ``ProfileMapper`` for each.

package enum ProfileMapping: String, Sendable, Hashable, CaseIterable {
    /// Twitter `account/verify_credentials.json` (and custom OAuth 1.0a providers, with the access-token
    /// answer's `user_id` / `screen_name` as fallback).
    case twitter
    /// OpenID Connect: the validated ID-token claims, plus userinfo when fetched.
    case oidc
    /// GitHub `/user` plus `/user/emails`.
    case github
    /// Facebook Graph `/me?fields=id,name,email`.
    case facebook
    /// A generic OAuth 2 user API: `sub` or `id`, `preferred_username` or `login`, `name`, `email`.
    case oauth2UserInfo
}
