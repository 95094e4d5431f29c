/// An OpenID Provider's discovery document (OpenID Connect Discovery 1.0 §3), the members the handler uses.
public struct OIDCProviderMetadata: Codable, Sendable, Equatable {
    /// The issuer identifier; equal to the configured issuer once `OIDCDiscovery` has accepted it.
    public var issuer: String
    public var authorizationEndpoint: String
    public var tokenEndpoint: String
    public var userinfoEndpoint: String?
    public var jwksURI: String
    public var responseModesSupported: [String]?
    public var codeChallengeMethodsSupported: [String]?
    public var idTokenSigningAlgValuesSupported: [String]?
    /// RFC 9207 §3: the provider sends `iss` in authorization responses.
    public var authorizationResponseIssParameterSupported: Bool?
    public var tokenEndpointAuthMethodsSupported: [String]?

    public init(
        issuer: String, authorizationEndpoint: String, tokenEndpoint: String, userinfoEndpoint: String? = nil,
        jwksURI: String, responseModesSupported: [String]? = nil, codeChallengeMethodsSupported: [String]? = nil,
        idTokenSigningAlgValuesSupported: [String]? = nil, authorizationResponseIssParameterSupported: Bool? = nil,
        tokenEndpointAuthMethodsSupported: [String]? = nil
    ) {
        self.issuer = issuer
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.userinfoEndpoint = userinfoEndpoint
        self.jwksURI = jwksURI
        self.responseModesSupported = responseModesSupported
        self.codeChallengeMethodsSupported = codeChallengeMethodsSupported
        self.idTokenSigningAlgValuesSupported = idTokenSigningAlgValuesSupported
        self.authorizationResponseIssParameterSupported = authorizationResponseIssParameterSupported
        self.tokenEndpointAuthMethodsSupported = tokenEndpointAuthMethodsSupported
    }

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
    public var supportsS256: Bool? {
        codeChallengeMethodsSupported.map { $0.contains("S256") }
    }
}
