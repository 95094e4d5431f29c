import AuthHandlerHTTP
import Foundation

extension ConfigValidator {
    /// Validates one entry of `providers`; nil when its protocol cannot be determined.
    ///
    /// A built-in id's ``BuiltInProvider`` entry supplies its protocol, response mode and quirks.
    package mutating func provider(id: String, value: JSONValue, at path: ConfigPath) -> ProviderConfig? {
        let implied = ProviderConfig.impliedProtocol(forID: id)
        if implied == nil {
            let builtIns = BuiltInProvider.ids.joined(separator: ", ")
            fail(
                path, "unknown provider id; expected a built-in id (\(builtIns)) or oidc.NAME, oauth2.NAME, oauth1.NAME"
            )
        }
        guard let fields = object(value, at: path, allowedKeys: Self.providerKeys) else { return nil }
        let builtIn = BuiltInProvider.named(id)
        let kind = protocolKind(id: id, implied: implied, isBuiltIn: builtIn != nil, fields: fields, at: path)
        var provider = providerSettings(fields, protocolKind: kind, at: path)

        if builtIn?.signsES256ClientSecret != true {
            let signers = BuiltInProvider.es256ClientSecretIDs.joined(separator: ", ")
            for key in Self.signingKeySettings where fields[key] != nil {
                fail(path.key(key), "only \(signers) uses \(key) (to sign its client secret); remove it")
            }
        }
        provider.trustEmail = trustEmail(fields["trustEmail"], isBuiltIn: builtIn != nil, at: path.key("trustEmail"))
        guard let kind else { return nil }

        switch kind {
        case .oauth1: oauth1Provider(&provider, builtIn: builtIn, fields: fields, at: path)
        case .oauth2: oauth2Provider(&provider, builtIn: builtIn, fields: fields, at: path)
        case .oidc: oidcProvider(&provider, builtIn: builtIn, fields: fields, at: path)
        }
        return provider
    }

    /// `trustEmail`: custom providers only, and a warning when true, as it takes the provider's word for an address
    /// it does not say it verified (HTTP-API.md §3.3).
    private mutating func trustEmail(_ value: JSONValue?, isBuiltIn: Bool, at path: ConfigPath) -> Bool? {
        guard let value, let trusts = boolean(value, at: path) else { return nil }
        if isBuiltIn {
            fail(
                path,
                "applies to custom providers only; a built-in provider's e-mail rule is fixed (HTTP-API.md §3.3); "
                    + "remove it")
            return nil
        }
        if trusts {
            warn(
                path,
                "the provider's e-mail is reported as verified without the provider saying so; an app or backend "
                    + "that links accounts by e-mail can then be taken over by anyone who can put a victim's "
                    + "address on an account at this provider; set it only if the provider verifies every address")
        }
        return trusts
    }

    /// The settings that sign an ES256 client secret (``BuiltInProvider/signsES256ClientSecret``).
    private static let signingKeySettings = ["teamId", "keyId", "privateKey"]

    /// The written `protocol` checked against the one the id implies; nil when neither is known.
    private mutating func protocolKind(
        id: String, implied: ProviderConfig.ProtocolKind?, isBuiltIn: Bool, fields: [String: JSONValue],
        at path: ConfigPath
    ) -> ProviderConfig.ProtocolKind? {
        var explicit: ProviderConfig.ProtocolKind?
        if let protocolValue = fields["protocol"] {
            explicit = enumeration(protocolValue, ProviderConfig.ProtocolKind.self, at: path.key("protocol"))
        }
        if let explicit, let implied, explicit != implied {
            fail(
                path.key("protocol"),
                "\"\(explicit.rawValue)\" does not match the id; \(id) uses \"\(implied.rawValue)\"")
        }
        if !isBuiltIn, fields["protocol"] == nil, let implied {
            fail(path.key("protocol"), "required for custom provider ids; expected \"\(implied.rawValue)\"")
        }
        return explicit ?? implied
    }

    /// Every setting as written, before the protocol's rules and defaults apply.
    private mutating func providerSettings(
        _ fields: [String: JSONValue], protocolKind kind: ProviderConfig.ProtocolKind?, at path: ConfigPath
    ) -> ProviderConfig {
        var provider = ProviderConfig(protocolKind: kind ?? .oauth2)
        provider.consumerKey = fields["consumerKey"].flatMap { string($0, at: path.key("consumerKey")) }
        provider.consumerSecret = fields["consumerSecret"].flatMap { secret($0, at: path.key("consumerSecret")) }
        provider.clientId = fields["clientId"].flatMap { string($0, at: path.key("clientId")) }
        provider.clientSecret = fields["clientSecret"].flatMap { secret($0, at: path.key("clientSecret")) }
        provider.issuer = fields["issuer"].flatMap { endpointURL($0, at: path.key("issuer")) }
        provider.teamId = fields["teamId"].flatMap { string($0, at: path.key("teamId")) }
        provider.keyId = fields["keyId"].flatMap { string($0, at: path.key("keyId")) }
        provider.privateKey = fields["privateKey"].flatMap { secret($0, at: path.key("privateKey")) }
        provider.displayName = fields["displayName"].flatMap { displayText($0, at: path.key("displayName")) }
        if let scopesValue = fields["scopes"] { provider.scopes = scopes(scopesValue, at: path.key("scopes")) }
        if let endpointsValue = fields["endpoints"] {
            provider.endpoints = endpoints(endpointsValue, protocolKind: kind, at: path.key("endpoints"))
        }
        provider.signatureMethod = fields["signatureMethod"].flatMap {
            enumeration($0, ProviderConfig.SignatureMethod.self, at: path.key("signatureMethod"))
        }
        provider.tokenEndpointAuth = fields["tokenEndpointAuth"].flatMap {
            enumeration($0, ProviderConfig.TokenEndpointAuth.self, at: path.key("tokenEndpointAuth"))
        }
        provider.responseMode = fields["responseMode"].flatMap {
            enumeration($0, ProviderConfig.ResponseMode.self, at: path.key("responseMode"))
        }
        return provider
    }

    /// OAuth 1.0a: consumer key and secret, the three endpoints for a custom id, `HMAC-SHA1` by default.
    private mutating func oauth1Provider(
        _ provider: inout ProviderConfig, builtIn: BuiltInProvider?, fields: [String: JSONValue],
        at path: ConfigPath
    ) {
        for key in ["clientId", "clientSecret", "issuer", "tokenEndpointAuth", "responseMode"]
        where fields[key] != nil {
            fail(path.key(key), "applies to OAuth 2 and OIDC providers; an OAuth 1.0a provider does not use it")
        }
        if fields["consumerKey"] == nil {
            fail(path.key("consumerKey"), "required for OAuth 1.0a providers; expected the consumer (API) key")
        }
        if fields["consumerSecret"] == nil {
            fail(path.key("consumerSecret"), "required for OAuth 1.0a providers; expected a secret reference")
        }
        if builtIn == nil {
            requireEndpoints(
                ["requestToken", "authorize", "accessToken"], in: provider.endpoints, at: path,
                because: "required for custom OAuth 1.0a providers")
        }
        provider.signatureMethod = provider.signatureMethod ?? .hmacSHA1
        provider.tokenEndpointAuth = nil
        provider.responseMode = nil
    }

    /// OAuth 2: the client rules, plus the authorization and token endpoints for a custom id.
    private mutating func oauth2Provider(
        _ provider: inout ProviderConfig, builtIn: BuiltInProvider?, fields: [String: JSONValue],
        at path: ConfigPath
    ) {
        clientCredentials(kind: .oauth2, fields: fields, at: path)
        if builtIn == nil {
            requireEndpoints(
                ["authorization", "token"], in: provider.endpoints, at: path,
                because: "required for custom OAuth 2 providers")
        }
        clientDefaults(&provider, builtIn: builtIn, fields: fields, at: path)
    }

    /// OIDC: the client rules, plus, for a custom id without `issuer` to discover, the endpoints.
    private mutating func oidcProvider(
        _ provider: inout ProviderConfig, builtIn: BuiltInProvider?, fields: [String: JSONValue],
        at path: ConfigPath
    ) {
        clientCredentials(kind: .oidc, fields: fields, at: path)
        if builtIn == nil, fields["issuer"] == nil {
            requireEndpoints(
                ["authorization", "token", "jwks"], in: provider.endpoints, at: path,
                because: "required for an OIDC provider without issuer; set issuer (discovery) or this")
        }
        clientDefaults(&provider, builtIn: builtIn, fields: fields, at: path)
    }

    /// OAuth 2 and OIDC: no OAuth 1.0a settings, and a client id.
    private mutating func clientCredentials(
        kind: ProviderConfig.ProtocolKind, fields: [String: JSONValue], at path: ConfigPath
    ) {
        for key in ["consumerKey", "consumerSecret", "signatureMethod"] where fields[key] != nil {
            fail(path.key(key), "applies to OAuth 1.0a providers; this \(kind.rawValue) provider does not use it")
        }
        if fields["clientId"] == nil {
            fail(path.key("clientId"), "required for \(kind.rawValue) providers; expected the client id")
        }
    }

    /// OAuth 2 and OIDC: the catalogue's response mode by default, and a way to authenticate the client.
    private mutating func clientDefaults(
        _ provider: inout ProviderConfig, builtIn: BuiltInProvider?, fields: [String: JSONValue],
        at path: ConfigPath
    ) {
        // tokenEndpointAuth is left nil when not written: the registry applies the provider's own default
        // (client_secret_basic, or client_secret_post where the catalogue says the token endpoint needs it).
        provider.signatureMethod = nil
        provider.responseMode = provider.responseMode ?? builtIn?.responseMode ?? .query
        clientAuthentication(
            builtIn: builtIn, fields: fields, tokenEndpointAuth: provider.tokenEndpointAuth, at: path)
    }

    /// Checks that a confidential client has a way to authenticate at the token endpoint.
    private mutating func clientAuthentication(
        builtIn: BuiltInProvider?, fields: [String: JSONValue],
        tokenEndpointAuth: ProviderConfig.TokenEndpointAuth?, at path: ConfigPath
    ) {
        let signs = builtIn?.signsES256ClientSecret == true
        if signs, Self.signingKeySettings.contains(where: { fields[$0] != nil }) {
            for key in Self.signingKeySettings where fields[key] == nil {
                fail(
                    path.key(key), "required with the other Sign in with Apple key settings (teamId, keyId, privateKey)"
                )
            }
        }
        if tokenEndpointAuth == ProviderConfig.TokenEndpointAuth.none {
            if fields["clientSecret"] != nil {
                warn(path.key("clientSecret"), "ignored with tokenEndpointAuth \"none\"")
            }
            return
        }
        let hasSigningKey = signs && Self.signingKeySettings.allSatisfy { fields[$0] != nil }
        if fields["clientSecret"] == nil && !hasSigningKey {
            let alternative = signs ? ", or teamId, keyId and privateKey," : ""
            fail(
                path.key("clientSecret"),
                "required\(alternative) unless tokenEndpointAuth is \"none\"; expected a secret reference")
        }
    }

    private mutating func requireEndpoints(
        _ keys: [String], in endpoints: ProviderEndpoints, at path: ConfigPath, because reason: String
    ) {
        for key in keys where endpoints.url(forKey: key) == nil {
            fail(path.key("endpoints").key(key), "\(reason); expected an https URL")
        }
    }

    private mutating func endpoints(
        _ value: JSONValue, protocolKind: ProviderConfig.ProtocolKind?, at path: ConfigPath
    ) -> ProviderEndpoints {
        let allowed =
            protocolKind.map { ProviderEndpoints.keys(for: $0) }
            ?? ProviderEndpoints.keys(for: .oauth1) + ProviderEndpoints.keys(for: .oauth2)
        var endpoints = ProviderEndpoints()
        guard let fields = object(value, at: path, allowedKeys: allowed) else { return endpoints }
        for key in allowed {
            guard let urlValue = fields[key], let url = endpointURL(urlValue, at: path.key(key)) else { continue }
            endpoints.set(key, to: url)
        }
        return endpoints
    }

    private mutating func scopes(_ value: JSONValue, at path: ConfigPath) -> [String]? {
        guard case .array(let items) = value else {
            return refuse(path, "expected an array of scope strings, got \(value.typeName)")
        }
        var scopes: [String] = []
        for (index, item) in items.enumerated() {
            guard let scope = string(item, at: path.index(index)) else { continue }
            if scope.contains(where: { $0.isWhitespace }) {
                fail(path.index(index), "\(Self.quote(scope)) contains whitespace; list each scope separately")
            } else {
                scopes.append(scope)
            }
        }
        return scopes
    }
}
