/// An OpenID Provider's discovery document (OpenID Connect Discovery 1.0 §3), the members the handler uses.
package struct OIDCProviderMetadata: Codable, Sendable, Equatable {
    /// The issuer identifier; equal to the configured issuer once `OIDCDiscovery` has accepted it.
    package var issuer: String
    package var authorizationEndpoint: String
    package var tokenEndpoint: String
    package var userinfoEndpoint: String?
    package var jwksURI: String
    package var responseModesSupported: [String]?
    package var codeChallengeMethodsSupported: [String]?
    package var idTokenSigningAlgValuesSupported: [String]?
    /// RFC 9207 §3: the provider sends `iss` in authorization responses.
    package var authorizationResponseIssParameterSupported: Bool?
    package var tokenEndpointAuthMethodsSupported: [String]?

    enum CodingKeys: String, CodingKey {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case userinfoEndpoint = "userinfo_endpoint"
        case jwksURI = "jwks_uri"
        case responseModesSupported = "response_modes_supported"
        case codeChallengeMethodsSupported = "code_challenge_methods_supported"
        case idTokenSigningAlgValuesSupported = "id_token_signing_alg_values_supported"
        case authorizationResponseIssParameterSupported = "authorization_response_iss_parameter_supported"
        case tokenEndpointAuthMethodsSupported = "token_endpoint_auth_methods_supported"
    }

    /// Whether the provider advertises PKCE `S256`; discovery may omit the member, so nil means unknown.
    package var supportsS256: Bool? {
        codeChallengeMethodsSupported.map { $0.contains("S256") }
    }
}
