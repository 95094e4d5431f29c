import Foundation

extension ConfigValidator {
    /// Validates one entry of `providers`; nil when its protocol cannot be determined.
    mutating func provider(id: String, value: ConfigJSONValue, at path: ConfigPath) -> ProviderConfig? {
        let implied = ProviderConfig.impliedProtocol(forID: id)
        if implied == nil {
            let builtIns = BuiltInProvider.ids.joined(separator: ", ")
            fail(
                path, "unknown provider id; expected a built-in id (\(builtIns)) or oidc.NAME, oauth2.NAME, oauth1.NAME"
            )
        }
        guard let fields = object(value, at: path, allowedKeys: Self.providerKeys) else { return nil }

        var explicit: ProviderConfig.ProtocolKind?
        if let protocolValue = fields["protocol"] {
            explicit = enumeration(protocolValue, ProviderConfig.ProtocolKind.self, at: path.key("protocol"))
        }
        if let explicit, let implied, explicit != implied {
            fail(
                path.key("protocol"),
                "\"\(explicit.rawValue)\" does not match the id; \(id) uses \"\(implied.rawValue)\"")
        }
        let builtIn = BuiltInProvider.named(id)
        let isBuiltIn = builtIn != nil
        if !isBuiltIn, implied != nil, fields["protocol"] == nil, let implied {
            fail(path.key("protocol"), "required for custom provider ids; expected \"\(implied.rawValue)\"")
        }
        let kind = explicit ?? implied

        var provider = ProviderConfig(protocolKind: kind ?? .oauth2)
        provider.consumerKey = fields["consumerKey"].flatMap { string($0, at: path.key("consumerKey")) }
        provider.consumerSecret = fields["consumerSecret"].flatMap { secret($0, at: path.key("consumerSecret")) }
        provider.clientId = fields["clientId"].flatMap { string($0, at: path.key("clientId")) }
        provider.clientSecret = fields["clientSecret"].flatMap { secret($0, at: path.key("clientSecret")) }
        provider.issuer = fields["issuer"].flatMap { endpointURL($0, at: path.key("issuer")) }
        provider.teamId = fields["teamId"].flatMap { string($0, at: path.key("teamId")) }
        provider.keyId = fields["keyId"].flatMap { string($0, at: path.key("keyId")) }
        provider.privateKey = fields["privateKey"].flatMap { secret($0, at: path.key("privateKey")) }
        if let scopesValue = fields["scopes"] { provider.scopes = scopes(scopesValue, at: path.key("scopes")) }
        if let endpointsValue = fields["endpoints"] {
            provider.endpoints = endpoints(endpointsValue, protocolKind: kind, at: path.key("endpoints"))
        }
        let signatureMethod = fields["signatureMethod"].flatMap {
            enumeration($0, ProviderConfig.SignatureMethod.self, at: path.key("signatureMethod"))
        }
        let tokenEndpointAuth = fields["tokenEndpointAuth"].flatMap {
            enumeration($0, ProviderConfig.TokenEndpointAuth.self, at: path.key("tokenEndpointAuth"))
        }
        let responseMode = fields["responseMode"].flatMap {
            enumeration($0, ProviderConfig.ResponseMode.self, at: path.key("responseMode"))
        }

        if builtIn?.signsES256ClientSecret != true {
            let signers = BuiltInProvider.es256ClientSecretIDs.joined(separator: ", ")
            for key in ["teamId", "keyId", "privateKey"] where fields[key] != nil {
                fail(path.key(key), "only \(signers) uses \(key) (to sign its client secret); remove it")
            }
        }
        guard let kind else { return nil }

        switch kind {
        case .oauth1:
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
            if !isBuiltIn {
                requireEndpoints(
                    ["requestToken", "authorize", "accessToken"], in: provider.endpoints, at: path,
                    because: "required for custom OAuth 1.0a providers")
            }
            provider.signatureMethod = signatureMethod ?? .hmacSHA1
        case .oauth2, .oidc:
            for key in ["consumerKey", "consumerSecret", "signatureMethod"] where fields[key] != nil {
                fail(path.key(key), "applies to OAuth 1.0a providers; this \(kind.rawValue) provider does not use it")
            }
            if fields["clientId"] == nil {
                fail(path.key("clientId"), "required for \(kind.rawValue) providers; expected the client id")
            }
            if !isBuiltIn {
                if kind == .oauth2 {
                    requireEndpoints(
                        ["authorization", "token"], in: provider.endpoints, at: path,
                        because: "required for custom OAuth 2 providers")
                } else if fields["issuer"] == nil {
                    requireEndpoints(
                        ["authorization", "token", "jwks"], in: provider.endpoints, at: path,
                        because: "required for an OIDC provider without issuer; set issuer (discovery) or this")
                }
            }
            // Left nil when not written: the registry applies the provider's own default (client_secret_basic,
            // or client_secret_post where the catalogue says its token endpoint documents only that).
            provider.tokenEndpointAuth = tokenEndpointAuth
            provider.responseMode = responseMode ?? builtIn?.responseMode ?? .query
            clientAuthentication(
                builtIn: builtIn, fields: fields, tokenEndpointAuth: provider.tokenEndpointAuth, at: path)
        }
        return provider
    }

    /// Checks that a confidential client has a way to authenticate at the token endpoint.
    private mutating func clientAuthentication(
        builtIn: BuiltInProvider?, fields: [String: ConfigJSONValue],
        tokenEndpointAuth: ProviderConfig.TokenEndpointAuth?, at path: ConfigPath
    ) {
        let appleKeys = ["teamId", "keyId", "privateKey"]
        let signs = builtIn?.signsES256ClientSecret == true
        if signs, appleKeys.contains(where: { fields[$0] != nil }) {
            for key in appleKeys where fields[key] == nil {
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
        let hasAppleKey = signs && appleKeys.allSatisfy { fields[$0] != nil }
        if fields["clientSecret"] == nil && !hasAppleKey {
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
        _ value: ConfigJSONValue, protocolKind: ProviderConfig.ProtocolKind?, at path: ConfigPath
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

    private mutating func scopes(_ value: ConfigJSONValue, at path: ConfigPath) -> [String]? {
        guard case .array(let items) = value else {
            fail(path, "expected an array of scope strings, got \(value.typeName)")
            return nil
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
